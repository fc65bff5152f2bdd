package dev.ddp4j.runtime;

import dev.ddp4j.ConfigException;
import dev.ddp4j.runtime.comm.CommHook;
import dev.ddp4j.runtime.comm.CommHooks;
import dev.ddp4j.runtime.comm.PowerSgd;
import dev.ddp4j.spi.Settings;
import java.util.Optional;

/**
 * How DdpModel buckets and communicates gradients, built with {@link #builder()} (defaults follow
 * PyTorch DDP) or read by {@link #fromEnvironment()} from:
 *
 * <table>
 *   <caption>Variables read</caption>
 *   <tr><th>variable</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>DDP4J_FIRST_BUCKET_MB</td><td>cap of the first bucket (the last layers)</td><td>1</td></tr>
 *   <tr><td>DDP4J_BUCKET_CAP_MB</td><td>cap of every other bucket</td><td>25</td></tr>
 *   <tr><td>DDP4J_COMM_HOOK</td><td>allreduce, fp16, bf16 or powersgd</td><td>allreduce</td></tr>
 *   <tr><td>DDP4J_POWERSGD_RANK</td><td>powersgd: columns of the low-rank factors</td><td>1</td></tr>
 *   <tr><td>DDP4J_POWERSGD_START_STEP</td><td>powersgd: first compressed step</td><td>1000</td></tr>
 *   <tr><td>DDP4J_TIMELINE</td><td>Chrome-trace file per rank ({rank} or .rankR added)</td><td>none</td></tr>
 *   <tr><td>DDP4J_SYNC_BATCHNORM</td><td>1: batch norm statistics over all ranks' examples</td><td>0</td></tr>
 *   <tr><td>DDP4J_SHARED_GRADIENTS</td><td>0: keep the gradients in ND4J's memory</td><td>1</td></tr>
 *   <tr><td>DDP4J_ZERO</td><td>1: ZeRO-1, the updater state sharded over the ranks</td><td>0</td></tr>
 *   <tr><td>DDP4J_JOIN</td><td>1: uneven inputs, ranks that ran out replay steps until all did</td><td>0</td></tr>
 * </table>
 *
 * <pre>{@code
 * DdpOptions options = DdpOptions.builder().bucketCapMb(50).commHook(CommHooks.fp16Compress()).build();
 * DdpOptions mine = DdpOptions.fromEnvironment().toBuilder().syncBatchNorm(true).build();
 * }</pre>
 */
public final class DdpOptions {

  public static final long MIB = 1L << 20;

  private final long firstBucketBytes;
  private final long bucketCapBytes;
  private final CommHook commHook;
  private final String timelinePattern;
  private final boolean syncBatchNorm;
  private final boolean sharedGradients;
  private final boolean zeroRedundancy;
  private final boolean join;

  private DdpOptions(Builder b) {
    this.firstBucketBytes = b.firstBucketBytes;
    this.bucketCapBytes = b.bucketCapBytes;
    this.commHook = b.commHook;
    this.timelinePattern = b.timelinePattern;
    this.syncBatchNorm = b.syncBatchNorm;
    this.sharedGradients = b.sharedGradients;
    this.zeroRedundancy = b.zeroRedundancy;
    this.join = b.join;
  }

  /** Options to set, starting from {@link #defaults()}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * 1 MiB first bucket, 25 MiB others, plain all-reduce, no timeline, per-rank batch norm, shared
   * gradients.
   */
  public static DdpOptions defaults() {
    return builder().build();
  }

  public static DdpOptions fromEnvironment() {
    return fromEnvironment(Settings.process());
  }

  /** {@code DDP4J_COMM_HOOK=powersgd} with its rank and start step from the environment. */
  private static CommHook powerSgd(Settings env) {
    return CommHooks.powerSgd(
        env.whole("DDP4J_POWERSGD_RANK", PowerSgd.DEFAULT_RANK, 1, 1 << 16),
        env.wholeLong("DDP4J_POWERSGD_START_STEP", PowerSgd.DEFAULT_START_STEP, 0, Long.MAX_VALUE));
  }

  public static DdpOptions fromEnvironment(Settings env) {
    Builder b = builder();
    megabytes(env, "DDP4J_FIRST_BUCKET_MB").ifPresent(b::firstBucketMb);
    megabytes(env, "DDP4J_BUCKET_CAP_MB").ifPresent(b::bucketCapMb);
    env.parsed("DDP4J_COMM_HOOK", CommHooks::named, CommHooks.NAMES)
        .map(hook -> hook instanceof PowerSgd ? powerSgd(env) : hook)
        .ifPresent(b::commHook);
    return b.timeline(env.text("DDP4J_TIMELINE", null))
        .syncBatchNorm(env.flag("DDP4J_SYNC_BATCHNORM", false))
        .sharedGradients(env.flag("DDP4J_SHARED_GRADIENTS", true))
        .zeroRedundancy(env.flag("DDP4J_ZERO", false))
        .join(env.flag("DDP4J_JOIN", false))
        .build();
  }

  private static Optional<Double> megabytes(Settings env, String name) {
    Optional<Double> mb =
        env.parsed(name, Double::parseDouble, "a positive number of MiB, e.g. 25");
    if (mb.isPresent() && !(mb.get() > 0)) {
      throw env.invalid(name, "a positive number of MiB, e.g. 25");
    }
    return mb;
  }

  /** Cap of bucket 0, which backward fills first (the last layers). */
  public long firstBucketBytes() {
    return firstBucketBytes;
  }

  /** Cap of the other buckets. */
  public long bucketCapBytes() {
    return bucketCapBytes;
  }

  /** How each bucket is communicated. */
  public CommHook commHook() {
    return commHook;
  }

  /** Where to write each rank's timeline ({rank} or .rankR added), or null for none. */
  public String timelinePattern() {
    return timelinePattern;
  }

  /**
   * Whether BatchNormalization layers normalise training batches with the mean and variance of
   * every rank's examples together (PyTorch's SyncBatchNorm), so N ranks with B examples each match
   * one process on N*B; off by default (each rank's own statistics, running statistics averaged
   * over ranks).
   */
  public boolean syncBatchNorm() {
    return syncBatchNorm;
  }

  /**
   * Whether, on the cpu backend, the model's flat gradient buffer moves into the group's shared
   * host memory ({@code ProcessGroup.allocateHost}) while the model is wrapped, so bucket
   * all-reduces read peers' gradients in place; on by default.
   */
  public boolean sharedGradients() {
    return sharedGradients;
  }

  /**
   * Whether the updater state is sharded over the ranks (ZeRO-1, PyTorch's
   * ZeroRedundancyOptimizer): gradients are reduce-scattered, each rank applies the model's DL4J
   * updater to its 1/N of the parameters with state for that part only, and the updates are
   * all-gathered; off by default. Needs the default comm hook and host memory (ND4J's CPU backend).
   */
  public boolean zeroRedundancy() {
    return zeroRedundancy;
  }

  /**
   * Whether {@code DdpModel.fit(DataSetIterator)} copes with uneven inputs as PyTorch's {@code
   * Join} does: a rank that ran out of batches replays each further step with a zero gradient and
   * zero examples (so the mean is over the examples trained) and applies the averaged gradient like
   * every rank, until every rank ran out. Off by default: the epoch ends on every rank when one ran
   * out. Cannot be combined with synchronised batch norm or truncated BPTT (refused at wrap).
   */
  public boolean join() {
    return join;
  }

  /** A builder holding these options, to change some of them. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.firstBucketBytes = firstBucketBytes;
    b.bucketCapBytes = bucketCapBytes;
    b.commHook = commHook;
    b.timelinePattern = timelinePattern;
    b.syncBatchNorm = syncBatchNorm;
    b.sharedGradients = sharedGradients;
    b.zeroRedundancy = zeroRedundancy;
    b.join = join;
    return b;
  }

  @Override
  public String toString() {
    return String.format(
        "DdpOptions[firstBucketBytes=%d, bucketCapBytes=%d, commHook=%s, timeline=%s,"
            + " syncBatchNorm=%b, sharedGradients=%b, zeroRedundancy=%b, join=%b]",
        firstBucketBytes,
        bucketCapBytes,
        commHook.name(),
        timelinePattern,
        syncBatchNorm,
        sharedGradients,
        zeroRedundancy,
        join);
  }

  /** Sets options one by one; each setter checks its value. */
  public static final class Builder {
    private long firstBucketBytes = MIB;
    private long bucketCapBytes = 25 * MIB;
    private CommHook commHook = CommHooks.allReduce();
    private String timelinePattern;
    private boolean syncBatchNorm;
    private boolean sharedGradients = true;
    private boolean zeroRedundancy;
    private boolean join;

    private Builder() {}

    /** Cap of bucket 0 in bytes (default 1 MiB). */
    public Builder firstBucketBytes(long bytes) {
      this.firstBucketBytes = positive("firstBucketBytes", bytes);
      return this;
    }

    /** Cap of every other bucket in bytes (default 25 MiB). */
    public Builder bucketCapBytes(long bytes) {
      this.bucketCapBytes = positive("bucketCapBytes", bytes);
      return this;
    }

    /** Cap of bucket 0 in MiB, as DDP4J_FIRST_BUCKET_MB (default 1). */
    public Builder firstBucketMb(double mb) {
      return firstBucketBytes(mebibytes("firstBucketMb", mb));
    }

    /** Cap of every other bucket in MiB, as DDP4J_BUCKET_CAP_MB and PyTorch's bucket_cap_mb. */
    public Builder bucketCapMb(double mb) {
      return bucketCapBytes(mebibytes("bucketCapMb", mb));
    }

    /** How each bucket is communicated (default {@link CommHooks#allReduce()}). */
    public Builder commHook(CommHook hook) {
      if (hook == null) {
        throw new ConfigException(
            "commHook : null (expected: a CommHook, e.g. CommHooks.allReduce())");
      }
      this.commHook = hook;
      return this;
    }

    /** Each rank's Chrome-trace file ({rank} or .rankR added), or null for none (the default). */
    public Builder timeline(String pattern) {
      this.timelinePattern = pattern;
      return this;
    }

    /** See {@link DdpOptions#syncBatchNorm()} (default off). */
    public Builder syncBatchNorm(boolean on) {
      this.syncBatchNorm = on;
      return this;
    }

    /** See {@link DdpOptions#sharedGradients()} (default on). */
    public Builder sharedGradients(boolean on) {
      this.sharedGradients = on;
      return this;
    }

    /** See {@link DdpOptions#zeroRedundancy()} (default off). */
    public Builder zeroRedundancy(boolean on) {
      this.zeroRedundancy = on;
      return this;
    }

    /** See {@link DdpOptions#join()} (default off). */
    public Builder join(boolean on) {
      this.join = on;
      return this;
    }

    public DdpOptions build() {
      return new DdpOptions(this);
    }

    private static long positive(String name, long bytes) {
      if (bytes < 1) {
        throw new ConfigException(name + " : " + bytes + " (expected: >= 1 byte)");
      }
      return bytes;
    }

    private static long mebibytes(String name, double mb) {
      if (!(mb > 0)) {
        throw new ConfigException(
            name + " : " + mb + " (expected: a positive number of MiB, e.g. 25)");
      }
      return Math.max(1, Math.round(mb * MIB));
    }
  }
}
