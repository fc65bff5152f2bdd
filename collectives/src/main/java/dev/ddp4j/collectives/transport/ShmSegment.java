package dev.ddp4j.collectives.transport;

import dev.ddp4j.DdpException;
import dev.ddp4j.collectives.reduce.UnsafeMemory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.logging.Logger;

/**
 * One memory-mapped file of a rank's shared-memory rings: created by its owner (in /dev/shm, or a
 * fallback folder when /dev/shm lacks the space) or opened by a peer on the same node. The owner
 * unlinks the file as soon as every peer has mapped it, so a crash leaves nothing behind; {@link
 * #close()} unmaps.
 */
public final class ShmSegment implements AutoCloseable {

  private static final Logger LOG = Logger.getLogger(ShmSegment.class.getName());

  /**
   * How every file's name starts: {@code ddp4j-PID-RANDOM.rRANK} (rings), {@code .mINDEX} appended
   * for blocks of {@link SharedHostMemory}.
   */
  static final String ORPHAN_PREFIX = "ddp4j-";

  private static final java.util.regex.Pattern RING_FILE =
      java.util.regex.Pattern.compile("ddp4j-\\d+-[0-9a-f]+\\.r\\d+(\\.m\\d+)?");

  private final Path path;
  private final MappedByteBuffer mapping;
  private final long address;
  private final boolean owner;

  private ShmSegment(Path path, MappedByteBuffer mapping, boolean owner) {
    this.path = path;
    this.mapping = mapping;
    this.address = UnsafeMemory.addressOf(mapping);
    this.owner = owner;
  }

  /**
   * A new file name for {@code rank}'s segment, {@code ddp4j-PID-RANDOM.rRANK}, the form the orphan
   * sweep knows: it removes the files of processes that are gone.
   */
  public static String newName(int rank) {
    return ORPHAN_PREFIX
        + ProcessHandle.current().pid()
        + "-"
        + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong())
        + ".r"
        + rank;
  }

  /**
   * Creates and maps a zeroed file of {@code bytes} named {@code name} in {@code preferred} (e.g.
   * /dev/shm), or in {@code fallback} with a warning when {@code preferred} is missing or has less
   * free space than {@code bytes} (touching pages beyond a full tmpfs would kill the process with
   * SIGBUS, so this is checked before mapping).
   */
  public static ShmSegment create(Path preferred, Path fallback, String name, long bytes) {
    return create(preferred, fallback, name, bytes, "this rank's rings");
  }

  /**
   * {@link #create(Path, Path, String, long)}, naming {@code what} needs the bytes in messages. The
   * bytes are reserved before mapping ({@link ShmFiles}), in {@code preferred} if they fit there,
   * else in {@code fallback}; neither: a one-line error naming both and the sizes.
   */
  static ShmSegment create(Path preferred, Path fallback, String name, long bytes, String what) {
    long free = usableBytes(preferred);
    String whyNotPreferred;
    if (free < bytes) {
      whyNotPreferred = free < 0 ? "no such folder" : "has " + size(free) + " free";
    } else {
      Path path = preferred.resolve(name);
      try {
        return createReserved(preferred, path, bytes);
      } catch (ShmFiles.NoRoomException e) {
        // Others on this node took the space since it was checked: try the fallback.
        whyNotPreferred =
            "had " + size(free) + " free but could not reserve " + size(bytes) + " (" + e + ")";
      }
    }
    String why = whyNotPreferred;
    LOG.warning(
        () ->
            "ddp4j shared memory: "
                + preferred
                + " "
                + why
                + " and "
                + what
                + " need "
                + size(bytes)
                + "; using "
                + fallback
                + " instead, which may be slower (fix: docker run --shm-size=1g, or set"
                + " DDP4J_SHM_DIR, or lower DDP4J_SHM_SLOT_BYTES / DDP4J_SHM_SLOTS)");
    long fallbackFree = usableBytes(fallback);
    if (fallbackFree >= bytes) {
      try {
        return createReserved(fallback, fallback.resolve(name), bytes);
      } catch (ShmFiles.NoRoomException e) {
        fallbackFree = Math.min(fallbackFree, Math.max(0, usableBytes(fallback)));
      }
    }
    throw new DdpException(
        "no room for shared memory: "
            + what
            + " need "
            + size(bytes)
            + ", but "
            + preferred
            + " "
            + why
            + " and "
            + fallback
            + " has "
            + size(Math.max(0, fallbackFree))
            + " free (fix: give /dev/shm more space, e.g. docker run --shm-size=1g, set"
            + " DDP4J_SHM_DIR to a larger tmpfs, lower DDP4J_SHM_SLOT_BYTES, or set"
            + " DDP4J_SHM_DISABLE=1 to use sockets)");
  }

  private static ShmSegment createReserved(Path dir, Path path, long bytes)
      throws ShmFiles.NoRoomException {
    removeOrphans(dir);
    try {
      ShmFiles.createReserved(path, bytes);
    } catch (ShmFiles.NoRoomException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      throw new DdpException("cannot create shared memory file " + path + ": " + e, e);
    }
    try (FileChannel ch =
        FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes);
      return new ShmSegment(path, map, true);
    } catch (IOException | RuntimeException e) {
      deleteQuietly(path);
      throw new DdpException("cannot map shared memory file " + path + ": " + e, e);
    }
  }

  /** Bytes exactly, with MiB for reading: "2097152 bytes (2.0 MiB)". */
  static String size(long bytes) {
    return bytes
        + " bytes ("
        + String.format(java.util.Locale.ROOT, "%.1f", bytes / 1048576.0)
        + " MiB)";
  }

  /** Maps a peer's file of {@code bytes} at {@code path}. */
  public static ShmSegment open(Path path, long bytes) {
    try (FileChannel ch =
        FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      if (ch.size() < bytes) {
        throw new DdpException(
            "shared memory file "
                + path
                + " has "
                + ch.size()
                + " bytes (expected: "
                + bytes
                + "; do all ranks use the same DDP4J_SHM_* settings?)");
      }
      return new ShmSegment(path, ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes), false);
    } catch (IOException e) {
      throw new DdpException(
          "cannot map the shared memory file " + path + " of a peer on this node: " + e, e);
    }
  }

  /**
   * Deletes ring files ({@code ddp4j-PID-...}) whose creator is no longer running: a rank killed in
   * the moment between creating its file and unlinking it once mapped leaves one behind.
   */
  static void removeOrphans(Path dir) {
    try (var files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        String n = f.getFileName().toString();
        int dash = n.indexOf('-', ORPHAN_PREFIX.length());
        if (!n.startsWith(ORPHAN_PREFIX) || dash < 0 || !RING_FILE.matcher(n).matches()) {
          continue;
        }
        try {
          long pid = Long.parseLong(n.substring(ORPHAN_PREFIX.length(), dash));
          if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            continue;
          }
          Files.deleteIfExists(f);
          LOG.info(() -> "removed " + f + ", left by process " + pid + " which is gone");
        } catch (NumberFormatException | IOException e) {
          // not ours, or already gone
        }
      }
    } catch (IOException | RuntimeException e) {
      // a folder we cannot list holds nothing we could clean
    }
  }

  private static long usableBytes(Path dir) {
    try {
      return Files.isDirectory(dir) ? Files.getFileStore(dir).getUsableSpace() : -1;
    } catch (IOException e) {
      return -1;
    }
  }

  /** The whole mapping as a buffer of its own (position 0, limit the file's size). */
  public ByteBuffer buffer() {
    return mapping.duplicate().clear();
  }

  /** The native address of byte 0. */
  public long address() {
    return address;
  }

  public Path path() {
    return path;
  }

  /** Removes the file name (the mappings stay valid); idempotent. */
  public void unlink() {
    if (owner) {
      deleteQuietly(path);
    }
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      LOG.warning(() -> "could not delete " + path + ": " + e);
    }
  }

  @Override
  public void close() {
    unlink();
    UnsafeMemory.release(mapping);
  }
}
