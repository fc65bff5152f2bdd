package dev.ddp4j.runtime;

import dev.ddp4j.ConfigException;
import dev.ddp4j.runtime.comm.CommHook;
import dev.ddp4j.runtime.comm.CommHooks;
import dev.ddp4j.spi.Settings;
import java.util.Optional;

/**
 * How DdpModel buckets and communicates gradients. Defaults follow PyTorch DDP; {@link
 * #fromEnvironment()} reads:
 *
 * <table>
 *   <caption>Variables read</caption>
 *   <tr><th>variable</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>DDP4J_FIRST_BUCKET_MB</td><td>cap of the first bucket (the last layers)</td><td>1</td></tr>
 *   <tr><td>DDP4J_BUCKET_CAP_MB</td><td>cap of every other bucket</td><td>25</td></tr>
 *   <tr><td>DDP4J_COMM_HOOK</td><td>allreduce, fp16 or bf16</td><td>allreduce</td></tr>
 *   <tr><td>DDP4J_TIMELINE</td><td>Chrome-trace file per rank ({rank} or .rankR added)</td><td>none</td></tr>
 *   <tr><td>DDP4J_SYNC_BATCHNORM</td><td>1: batch norm statistics over all ranks' examples</td><td>0</td></tr>
 *   <tr><td>DDP4J_SHARED_GRADIENTS</td><td>0: keep the gradients in ND4J's memory</td><td>1</td></tr>
 * </table>
 *
 * @param firstBucketBytes cap of bucket 0, which backward fills first
 * @param bucketCapBytes cap of the other buckets
 * @param commHook how each bucket is communicated
 * @param timelinePattern where to write each rank's timeline, or null for none
 * @param syncBatchNorm whether BatchNormalization layers normalise training batches with the mean
 *     and variance of every rank's examples together (PyTorch's SyncBatchNorm), so N ranks with B
 *     examples each match one process on N*B; off by default (each rank's own statistics, running
 *     statistics averaged over ranks)
 * @param sharedGradients whether, on the cpu backend, the model's flat gradient buffer moves into
 *     the group's shared host memory ({@code ProcessGroup.allocateHost}) while the model is
 *     wrapped, so bucket all-reduces read peers' gradients in place; on by default
 */
public record DdpOptions(
    long firstBucketBytes,
    long bucketCapBytes,
    CommHook commHook,
    String timelinePattern,
    boolean syncBatchNorm,
    boolean sharedGradients) {

  public static final long MIB = 1L << 20;

  public DdpOptions {
    if (firstBucketBytes < 1 || bucketCapBytes < 1) {
      throw new ConfigException(
          "bucket caps of "
              + firstBucketBytes
              + " and "
              + bucketCapBytes
              + " bytes (expected: both >= 1)");
    }
    if (commHook == null) {
      throw new ConfigException(
          "commHook : null (expected: a CommHook, e.g. CommHooks.allReduce())");
    }
  }

  /** Options without synchronised batch norm, with shared gradients. */
  public DdpOptions(
      long firstBucketBytes, long bucketCapBytes, CommHook commHook, String timelinePattern) {
    this(firstBucketBytes, bucketCapBytes, commHook, timelinePattern, false, true);
  }

  /** Options with shared gradients. */
  public DdpOptions(
      long firstBucketBytes,
      long bucketCapBytes,
      CommHook commHook,
      String timelinePattern,
      boolean syncBatchNorm) {
    this(firstBucketBytes, bucketCapBytes, commHook, timelinePattern, syncBatchNorm, true);
  }

  /**
   * 1 MiB first bucket, 25 MiB others, plain all-reduce, no timeline, per-rank batch norm, shared
   * gradients.
   */
  public static DdpOptions defaults() {
    return new DdpOptions(MIB, 25 * MIB, CommHooks.allReduce(), null, false, true);
  }

  public static DdpOptions fromEnvironment() {
    return fromEnvironment(Settings.process());
  }

  public static DdpOptions fromEnvironment(Settings env) {
    DdpOptions d = defaults();
    long first = megabytes(env, "DDP4J_FIRST_BUCKET_MB", d.firstBucketBytes());
    long cap = megabytes(env, "DDP4J_BUCKET_CAP_MB", d.bucketCapBytes());
    CommHook hook =
        env.parsed("DDP4J_COMM_HOOK", CommHooks::named, CommHooks.NAMES).orElse(d.commHook());
    return new DdpOptions(
        first,
        cap,
        hook,
        env.text("DDP4J_TIMELINE", null),
        env.flag("DDP4J_SYNC_BATCHNORM", false),
        env.flag("DDP4J_SHARED_GRADIENTS", true));
  }

  private static long megabytes(Settings env, String name, long fallback) {
    Optional<Double> mb =
        env.parsed(name, Double::parseDouble, "a positive number of MiB, e.g. 25");
    if (mb.isEmpty()) {
      return fallback;
    }
    if (!(mb.get() > 0)) {
      throw env.invalid(name, "a positive number of MiB, e.g. 25");
    }
    return Math.max(1, Math.round(mb.get() * MIB));
  }

  public DdpOptions withBucketCaps(long firstBytes, long capBytes) {
    return new DdpOptions(
        firstBytes, capBytes, commHook, timelinePattern, syncBatchNorm, sharedGradients);
  }

  public DdpOptions withCommHook(CommHook hook) {
    return new DdpOptions(
        firstBucketBytes, bucketCapBytes, hook, timelinePattern, syncBatchNorm, sharedGradients);
  }

  public DdpOptions withTimeline(String pattern) {
    return new DdpOptions(
        firstBucketBytes, bucketCapBytes, commHook, pattern, syncBatchNorm, sharedGradients);
  }

  /** With synchronised batch statistics on or off (see {@link #syncBatchNorm()}). */
  public DdpOptions withSyncBatchNorm(boolean on) {
    return new DdpOptions(
        firstBucketBytes, bucketCapBytes, commHook, timelinePattern, on, sharedGradients);
  }

  /** With the gradients in shared host memory or not (see {@link #sharedGradients()}). */
  public DdpOptions withSharedGradients(boolean on) {
    return new DdpOptions(
        firstBucketBytes, bucketCapBytes, commHook, timelinePattern, syncBatchNorm, on);
  }
}
