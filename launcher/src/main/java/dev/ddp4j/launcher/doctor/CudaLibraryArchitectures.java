package dev.ddp4j.launcher.doctor;

import dev.ddp4j.collectives.gpu.FatBinaryArchitectures;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The GPU architectures a CUDA shared library's kernels serve, from its {@code .nv_fatbin} section.
 * ND4J's {@code libnd4jcuda.so} is 905 MB inside a 600 MB jar, so a jar's library is inflated to a
 * temporary file (deleted afterwards) and only that section is mapped, never read onto the heap.
 */
final class CudaLibraryArchitectures {

  static final String SECTION = ".nv_fatbin";

  private CudaLibraryArchitectures() {}

  /**
   * The architectures of library {@code entry} of jar or folder {@code where}; a jar's library is
   * inflated into {@code tmpDir} first.
   *
   * @throws IOException if it cannot be read or there is no room for it in {@code tmpDir}
   * @throws IllegalArgumentException if it is no ELF64 library, or holds no or a corrupt fat binary
   */
  static FatBinaryArchitectures read(Path where, String entry, Path tmpDir) throws IOException {
    if (Files.isDirectory(where)) {
      return ofLibrary(where.resolve(entry));
    }
    try (ZipFile jar = new ZipFile(where.toFile())) {
      ZipEntry e = jar.getEntry(entry);
      if (e == null) {
        throw new IOException(where + " holds no " + entry);
      }
      long free = Files.getFileStore(tmpDir).getUsableSpace();
      if (e.getSize() > free) {
        throw new IOException(
            String.format(
                Locale.ROOT,
                "%s is %d MB inflated but %s has %d MB free",
                entry,
                e.getSize() >> 20,
                tmpDir,
                free >> 20));
      }
      Path tmp = Files.createTempFile(tmpDir, "ddp4j-doctor-", ".so");
      try {
        try (InputStream in = jar.getInputStream(e)) {
          Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
        }
        return ofLibrary(tmp);
      } finally {
        // Unlinked while still mapped: Linux frees the blocks once the mapping is collected.
        Files.deleteIfExists(tmp);
      }
    }
  }

  /** The architectures of the shared library {@code so}, through its mapped fat-binary section. */
  static FatBinaryArchitectures ofLibrary(Path so) throws IOException {
    try (FileChannel ch = FileChannel.open(so, StandardOpenOption.READ)) {
      ElfSections.Section s =
          ElfSections.find(ch, SECTION)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "it has no " + SECTION + " section, so no CUDA kernels"));
      if (s.offset() + s.bytes() > ch.size()) {
        throw new IllegalArgumentException(
            "truncated: its "
                + SECTION
                + " section ends at byte "
                + (s.offset() + s.bytes())
                + " of "
                + ch.size());
      }
      if (s.bytes() > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "its " + SECTION + " section is " + s.bytes() + " bytes, over the 2 GiB one map holds");
      }
      return FatBinaryArchitectures.parse(
          ch.map(FileChannel.MapMode.READ_ONLY, s.offset(), s.bytes()));
    }
  }
}
