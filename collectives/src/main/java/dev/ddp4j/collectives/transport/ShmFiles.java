package dev.ddp4j.collectives.transport;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Creates the files behind shared memory: readable by their owner only (0600: rings and shared
 * gradients hold training data), with every byte reserved at creation. A sparse file on a tmpfs
 * that fills up later would kill the process with SIGBUS on the first touch of a page that has no
 * room; reserving up front turns that into an error here, while it can still be reported.
 */
final class ShmFiles {

  private static final int O_RDWR = 02;
  private static final int O_CREAT = 0100;
  private static final int O_EXCL = 0200;
  private static final int O_CLOEXEC = 02000000;
  private static final int MODE_0600 = 0600;
  private static final int ENOSPC = 28;
  private static final boolean NATIVE = register();

  private ShmFiles() {}

  /** No room for the bytes (or the reservation failed otherwise); the file is removed. */
  static final class NoRoomException extends IOException {
    private static final long serialVersionUID = 1L;
    final boolean full;

    NoRoomException(String message, boolean full) {
      super(message);
      this.full = full;
    }
  }

  private static boolean register() {
    try {
      if (!Platform.isLinux()) {
        return false;
      }
      Native.register(ShmFiles.class, Platform.C_LIBRARY_NAME);
      return true;
    } catch (Throwable e) { // NOPMD: no JNA here: the portable path below reserves the bytes
      return false;
    }
  }

  private static native int open(String path, int flags, int mode) throws LastErrorException;

  private static native int posix_fallocate(int fd, long offset, long len);

  private static native int close(int fd);

  /**
   * Creates {@code path} (it must not exist) with mode 0600 and {@code bytes} reserved.
   *
   * @throws NoRoomException when the bytes cannot be reserved (the file is deleted again)
   * @throws IOException when the file cannot be created
   */
  static void createReserved(Path path, long bytes) throws IOException {
    if (NATIVE) {
      int fd;
      try {
        fd = open(path.toString(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, MODE_0600);
      } catch (LastErrorException e) {
        throw new IOException("cannot create " + path + ": errno " + e.getErrorCode());
      }
      int err;
      try {
        err = posix_fallocate(fd, 0, bytes);
      } finally {
        close(fd);
      }
      if (err != 0) {
        Files.deleteIfExists(path);
        throw new NoRoomException(
            err == ENOSPC ? "no space left" : "posix_fallocate failed with errno " + err,
            err == ENOSPC);
      }
      return;
    }
    try (FileChannel ch =
        FileChannel.open(
            path,
            java.util.Set.of(
                StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
      ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
      for (long at = 0; at < bytes; ) {
        zeros.clear().limit((int) Math.min(zeros.capacity(), bytes - at));
        at += ch.write(zeros, at);
      }
    } catch (IOException e) {
      Files.deleteIfExists(path);
      boolean full = String.valueOf(e.getMessage()).contains("No space left");
      throw full ? new NoRoomException("no space left", true) : e;
    }
  }
}
