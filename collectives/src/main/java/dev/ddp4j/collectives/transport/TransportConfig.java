package dev.ddp4j.collectives.transport;

import dev.ddp4j.spi.Settings;
import java.nio.file.Path;

/**
 * Transport settings read from the environment ({@code DDP4J_*}, with NCCL's names as fallbacks).
 * Every rank of a group must use the same values for the sizes.
 *
 * @param shmDisabled {@code DDP4J_SHM_DISABLE=1}: sockets even between ranks of one node
 * @param shmDir {@code DDP4J_SHM_DIR}, default /dev/shm
 * @param fallbackDir where ring files go when {@code shmDir} is too small: java.io.tmpdir
 * @param slotBytes {@code DDP4J_SHM_SLOT_BYTES}: the piece size of every transport, default 64 KiB
 * @param slots {@code DDP4J_SHM_SLOTS}: pieces in flight per ring, default 8
 * @param channels {@code DDP4J_NCHANNELS}: channels, default 1
 * @param socketInterface {@code DDP4J_SOCKET_IFNAME}: the interface sockets listen on, or null
 * @param socketLivenessMs {@code DDP4J_SOCKET_LIVENESS_MS}: a socket peer that sent nothing, not
 *     even a heartbeat, for this long counts as dead (its host vanished without closing its
 *     sockets); default 10000. Heartbeats go out every fifth of it.
 * @param cmaDisabled {@code DDP4J_CMA_DISABLE=1}: never read peers' buffers with cross-memory
 *     attach ({@link CrossMemory}), even where every rank of a group shares one node
 * @param cmaMinBytes {@code DDP4J_CMA_MIN_BYTES}: the smallest all-reduce (in bytes) that reads
 *     peers' buffers with cross-memory attach instead of passing pieces through the rings, the same
 *     on every rank; default 8 MiB ({@link #DEFAULT_CMA_MIN_BYTES}), {@code off} ({@link #CMA_OFF})
 *     for never
 * @param cmaMaxBytes {@code DDP4J_CMA_MAX_BYTES}: the largest such all-reduce; default 16 MiB
 * @param cmaRequested {@code DDP4J_CMA_MIN_BYTES} was set: a kernel that refuses is then worth a
 *     warning, where under the default it is only logged at INFO
 * @param sharedMinBytes {@code DDP4J_SHARED_MIN_BYTES}: the smallest all-reduce (in bytes) that,
 *     where every rank's buffer lies in the group's shared host memory ({@link SharedHostMemory}),
 *     reads peers' buffers through its mappings instead of the plan's algorithm, the same on every
 *     rank; 0 when unset: then {@link #sharedMinBytes(int)} gives the default for the group's size;
 *     {@code off} ({@link #CMA_OFF}) for never
 * @param linkAuth the job secret ({@code DDP4J_STORE_SECRET}, or the file {@code
 *     DDP4J_STORE_SECRET_FILE} names) as the data sockets between hosts prove it
 * @param socketIntegrity {@code DDP4J_SOCKET_INTEGRITY} (default 0): 1 seals every data frame
 *     between hosts with an AES-GCM tag checked on arrival, against a party that can alter traffic
 *     in transit; 0 leaves frames unsealed (the handshake still proves the secret)
 */
public record TransportConfig(
    boolean shmDisabled,
    Path shmDir,
    Path fallbackDir,
    int slotBytes,
    int slots,
    int channels,
    String socketInterface,
    long socketLivenessMs,
    boolean cmaDisabled,
    long cmaMinBytes,
    long cmaMaxBytes,
    boolean cmaRequested,
    long sharedMinBytes,
    LinkAuth linkAuth,
    boolean socketIntegrity) {

  public static final int DEFAULT_SLOT_BYTES = 64 * 1024;
  public static final int DEFAULT_SLOTS = 8;
  public static final int DEFAULT_SOCKET_LIVENESS_MS = 10_000;

  /** {@link #cmaMinBytes} when cross-memory attach is off ({@code DDP4J_CMA_MIN_BYTES=off}). */
  public static final long CMA_OFF = Long.MAX_VALUE;

  /**
   * The default window of cross-memory attach, 8 MiB to 16 MiB: there it beat the rings on both
   * machines it was measured on (by 15-20 % on a 16-core host; 1.01-1.08x OpenMPI against the
   * rings' 0.92-0.97x on the 2-core one); at 2-4 MiB and from 32 MiB the rings were as fast or
   * faster on one of them (bench/cpu-allreduce-vs-openmpi.md).
   */
  public static final long DEFAULT_CMA_MIN_BYTES = 8L << 20;

  public static final long DEFAULT_CMA_MAX_BYTES = 16L << 20;

  /**
   * From these sizes the direct reads of shared host memory ran faster than the plan's algorithms:
   * 128 KiB on 3 or more ranks, 256 KiB on 2, where the ring was as fast or faster at 128 KiB on
   * both machines measured (bench/cpu-allreduce-vs-openmpi.md).
   */
  public static final long DEFAULT_SHARED_MIN_BYTES = 128L << 10;

  public static final long DEFAULT_SHARED_MIN_BYTES_TWO_RANKS = 256L << 10;

  /** Reads the settings from {@code env}. */
  public static TransportConfig fromEnvironment(Settings env) {
    boolean disabled = env.flag("DDP4J_SHM_DISABLE", false);
    Path dir = Path.of(env.text("DDP4J_SHM_DIR", "/dev/shm"));
    int slotBytes = env.whole("DDP4J_SHM_SLOT_BYTES", DEFAULT_SLOT_BYTES, 4096, Integer.MAX_VALUE);
    if (slotBytes % 64 != 0) {
      throw env.invalid("DDP4J_SHM_SLOT_BYTES", "a multiple of 64, at least 4096");
    }
    int slots = env.whole("DDP4J_SHM_SLOTS", DEFAULT_SLOTS, 2, Integer.MAX_VALUE);
    int channels = env.whole("DDP4J_NCHANNELS", 1, 1, 64);
    String ifname = env.text("DDP4J_SOCKET_IFNAME", null);
    int livenessMs =
        env.whole("DDP4J_SOCKET_LIVENESS_MS", DEFAULT_SOCKET_LIVENESS_MS, 250, Integer.MAX_VALUE);
    boolean cmaDisabled = env.flag("DDP4J_CMA_DISABLE", false);
    boolean cmaRequested = env.isSet("DDP4J_CMA_MIN_BYTES");
    long cmaMinBytes = bytesOrOff(env, "DDP4J_CMA_MIN_BYTES", DEFAULT_CMA_MIN_BYTES);
    long sharedMinBytes = bytesOrOff(env, "DDP4J_SHARED_MIN_BYTES", 0);
    long cmaMaxBytes =
        env.wholeLong("DDP4J_CMA_MAX_BYTES", DEFAULT_CMA_MAX_BYTES, 1, Long.MAX_VALUE);
    // Off by default: tagging every frame took the socket bench to 0.42-0.50x its bandwidth
    // (docs/security.md); the authenticated handshake runs either way.
    boolean integrity = env.flag("DDP4J_SOCKET_INTEGRITY", false);
    return new TransportConfig(
        disabled,
        dir,
        Path.of(System.getProperty("java.io.tmpdir")),
        slotBytes,
        slots,
        channels,
        ifname,
        livenessMs,
        cmaDisabled,
        cmaMinBytes,
        cmaMaxBytes,
        cmaRequested,
        sharedMinBytes,
        LinkAuth.fromSecret(dev.ddp4j.collectives.store.StoreSecret.fromEnvironment(env)),
        integrity);
  }

  /**
   * {@link #sharedMinBytes} for a group of {@code ranks}: as set, or {@link
   * #DEFAULT_SHARED_MIN_BYTES_TWO_RANKS} for 2 ranks and {@link #DEFAULT_SHARED_MIN_BYTES} for
   * more.
   */
  public long sharedMinBytes(int ranks) {
    if (sharedMinBytes != 0) {
      return sharedMinBytes;
    }
    return ranks == 2 ? DEFAULT_SHARED_MIN_BYTES_TWO_RANKS : DEFAULT_SHARED_MIN_BYTES;
  }

  /** A byte count >= 1 or {@code off} ({@link #CMA_OFF}: never); {@code dflt} when unset. */
  private static long bytesOrOff(Settings env, String name, long dflt) {
    if (env.text(name, "").equals("off")) {
      return CMA_OFF;
    }
    return env.wholeLong(name, dflt, 1, Long.MAX_VALUE);
  }

  /** True unless cross-memory attach is disabled or has no size to run at. */
  public boolean cmaWanted() {
    return !cmaDisabled && cmaMinBytes != CMA_OFF;
  }

  public ShmRingDescriptor ringLayout(int nodeRanks) {
    return new ShmRingDescriptor(nodeRanks, channels, slots, slotBytes);
  }
}
