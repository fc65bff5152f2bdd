package dev.ddp4j.launcher.doctor;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Finds a named section of a little-endian ELF64 file (a shared library) through its section
 * headers, reading only the headers and the section-name table, so that a 900 MB library costs a
 * few reads:
 *
 * <pre>
 * file header    0: 0x7F 'E' 'L' 'F' | class (2: 64-bit) | data (1: little-endian) | ...
 *             0x28: u64 e_shoff (section headers' offset)
 *             0x3A: u16 e_shentsize | u16 e_shnum | u16 e_shstrndx (the section-name table)
 * section header 0: u32 sh_name (offset in the name table) | u32 sh_type (8: NOBITS, no bytes)
 *             0x18: u64 sh_offset | 0x20: u64 sh_size   (section 0's sh_size and sh_link hold
 *                   e_shnum and e_shstrndx where those overflow: 0 and 0xFFFF)
 * </pre>
 */
final class ElfSections {

  /** Where a section's bytes lie in the file. */
  record Section(String name, long offset, long bytes) {}

  private static final int SHT_NOBITS = 8;
  private static final int SHN_XINDEX = 0xFFFF;

  private ElfSections() {}

  /**
   * The section {@code name} (such as {@code .nv_fatbin}), or empty where the file has none.
   *
   * @throws IllegalArgumentException if {@code file} is not a little-endian ELF64 file
   */
  static Optional<Section> find(FileChannel file, String name) throws IOException {
    if (file.size() < 64) {
      throw new IllegalArgumentException(
          "not a little-endian ELF64 file: " + file.size() + " bytes, under its 64-byte header");
    }
    ByteBuffer h = read(file, 0, 64);
    if (h.getInt(0) != 0x464C457F || h.get(4) != 2 || h.get(5) != 1) {
      throw new IllegalArgumentException(
          String.format(
              "not a little-endian ELF64 file: header bytes %02X %02X %02X %02X, class %d, data %d"
                  + " (expected: 7F 45 4C 46, class 2, data 1)",
              h.get(0), h.get(1), h.get(2), h.get(3), h.get(4), h.get(5)));
    }
    long shoff = h.getLong(0x28);
    int entryBytes = h.getShort(0x3A) & 0xFFFF;
    long count = h.getShort(0x3C) & 0xFFFF;
    int names = h.getShort(0x3E) & 0xFFFF;
    if (shoff == 0 || entryBytes < 64) {
      return Optional.empty(); // no section headers (stripped to program headers only)
    }
    ByteBuffer first = read(file, shoff, 64);
    count = count == 0 ? first.getLong(0x20) : count;
    names = names == SHN_XINDEX ? first.getInt(0x28) : names;
    if (names >= count) {
      throw new IllegalArgumentException(
          "corrupt ELF file: section-name table " + names + " of " + count + " sections");
    }
    ByteBuffer table = read(file, shoff, Math.toIntExact(count * entryBytes));
    ByteBuffer nameTable =
        read(file, offset(table, names, entryBytes), size(table, names, entryBytes));
    byte[] wanted = name.getBytes(StandardCharsets.UTF_8);
    for (int i = 1; i < count; i++) {
      int at = i * entryBytes;
      if (table.getInt(at + 4) != SHT_NOBITS && named(nameTable, table.getInt(at), wanted)) {
        return Optional.of(
            new Section(name, offset(table, i, entryBytes), table.getLong(at + 0x20)));
      }
    }
    return Optional.empty();
  }

  private static long offset(ByteBuffer table, int i, int entryBytes) {
    return table.getLong(i * entryBytes + 0x18);
  }

  private static int size(ByteBuffer table, int i, int entryBytes) {
    return Math.toIntExact(table.getLong(i * entryBytes + 0x20));
  }

  /** Whether the NUL-terminated name at {@code at} in the name table is {@code wanted}. */
  private static boolean named(ByteBuffer nameTable, int at, byte[] wanted) {
    if (at < 0 || at + wanted.length >= nameTable.limit()) {
      return false;
    }
    for (int i = 0; i < wanted.length; i++) {
      if (nameTable.get(at + i) != wanted[i]) {
        return false;
      }
    }
    return nameTable.get(at + wanted.length) == 0;
  }

  private static ByteBuffer read(FileChannel file, long at, int bytes) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
    while (b.hasRemaining()) {
      if (file.read(b, at + b.position()) < 0) {
        throw new EOFException(
            "ELF file ends at byte " + file.size() + ", before " + (at + bytes) + " it points to");
      }
    }
    return b.flip();
  }
}
