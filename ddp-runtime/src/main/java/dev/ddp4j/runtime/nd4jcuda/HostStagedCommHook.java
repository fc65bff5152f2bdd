package dev.ddp4j.runtime.nd4jcuda;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.Work;
import dev.ddp4j.runtime.comm.CommHook;
import org.nd4j.linalg.api.concurrency.AffinityManager;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Wraps a host {@link CommHook} for ND4J's CUDA backend with a host group ({@code cpu}): the
 * bucket's host copy is brought up to date before the collective reads it, and marked as the newest
 * copy after the collective wrote it, so ND4J copies it back to the device before the updater runs.
 * (On the CPU backend both calls are no-ops; DdpModel only uses this wrapper on CUDA.)
 */
final class HostStagedCommHook implements CommHook {

  private final CommHook host;

  HostStagedCommHook(CommHook host) {
    this.host = host;
  }

  @Override
  public Pending start(ProcessGroup group, INDArray bucket) {
    Nd4j.getAffinityManager().ensureLocation(bucket, AffinityManager.Location.HOST);
    Pending p = host.start(group, bucket);
    return new Pending() {
      @Override
      public Work work() {
        return p.work();
      }

      @Override
      public void finish() {
        p.finish();
        Nd4j.getAffinityManager().tagLocation(bucket, AffinityManager.Location.HOST);
      }
    };
  }

  @Override
  public String name() {
    return host.name();
  }
}
