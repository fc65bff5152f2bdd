package dev.ddp4j.collectives.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.DdpException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shared-memory files on small tmpfs mounts of the test's own: bytes are reserved when the file is
 * made, so a second file that would over-commit the mount fails with a message instead of mapping a
 * sparse file whose pages later kill the process with SIGBUS; files are private to their owner.
 * Needs root to mount (as in CI); skipped with the reason elsewhere.
 */
class ShmReservationTest {

  private static final long MIB = 1 << 20;

  @TempDir Path tmp;
  private Path small;
  private Path smaller;

  @BeforeEach
  void mountTwoSmallTmpfs() throws Exception {
    small = Files.createDirectory(tmp.resolve("shm8m"));
    smaller = Files.createDirectory(tmp.resolve("shm4m"));
    String failed = mount(small, "8m");
    Assumptions.assumeTrue(failed == null, "cannot mount a tmpfs (needs root): " + failed);
    failed = mount(smaller, "4m");
    Assumptions.assumeTrue(failed == null, "cannot mount a second tmpfs: " + failed);
  }

  @AfterEach
  void unmount() throws Exception {
    for (Path p : new Path[] {small, smaller}) {
      if (p != null) {
        run("umount", p.toString());
      }
    }
  }

  @Test
  void aSegmentThatWouldOverCommitTheTmpfsShouldFailNamingTheFoldersAndSizes() {
    try (ShmSegment first = ShmSegment.create(small, smaller, "ddp4j-1-a.r0", 5 * MIB)) {
      // The first file's bytes are taken now, not at first touch: the mount has 3 MiB left.
      assertThat(usable(small)).isLessThanOrEqualTo(3 * MIB);
      assertThatThrownBy(() -> ShmSegment.create(small, smaller, "ddp4j-1-a.r1", 5 * MIB))
          .isInstanceOf(DdpException.class)
          .hasMessageContaining("no room for shared memory: this rank's rings need 5242880 bytes")
          .hasMessageContaining(small.toString())
          .hasMessageContaining(smaller.toString())
          .hasMessageContaining("DDP4J_SHM_DIR")
          .hasMessageNotContaining("\n");
      // Every page of the first is backed: writing all of it cannot fault.
      for (long at = 0; at < 5 * MIB; at += 4096) {
        dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE.putByte(first.address() + at, (byte) 1);
      }
    }
  }

  @Test
  void aSegmentThatDoesNotFitThePreferredFolderShouldGoToTheFallback() {
    try (ShmSegment first = ShmSegment.create(small, smaller, "ddp4j-1-b.r0", 6 * MIB);
        ShmSegment second = ShmSegment.create(small, smaller, "ddp4j-1-b.r1", 3 * MIB)) {
      assertThat(first.path().getParent()).isEqualTo(small);
      assertThat(second.path().getParent()).isEqualTo(smaller);
    }
  }

  @Test
  void segmentFilesShouldBeReadableByTheirOwnerOnly() throws IOException {
    try (ShmSegment s = ShmSegment.create(small, smaller, "ddp4j-1-c.r0", MIB)) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(s.path())))
          .isEqualTo("rw-------");
    }
  }

  private static long usable(Path p) {
    try {
      return Files.getFileStore(p).getUsableSpace();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String mount(Path dir, String size) throws Exception {
    return run("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", dir.toString());
  }

  private static String run(String... argv) throws Exception {
    Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    if (!p.waitFor(20, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      return String.join(" ", argv) + ": " + new String(p.getInputStream().readAllBytes()).trim();
    }
    return null;
  }
}
