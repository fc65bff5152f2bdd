package dev.ddp4j.runtime.comm;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.Work;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * How DdpModel communicates one bucket, like PyTorch DDP's comm hooks: plain all-reduce, or
 * compressed to fp16 / bf16 on the wire ({@link CommHooks}). A hook must leave in the bucket the
 * sum over all ranks (DdpModel scales it afterwards), and every rank must use the same hook.
 */
public interface CommHook {

  /**
   * Starts summing {@code bucket} over every rank of {@code group}. Called on the training thread
   * while backward runs, outside ND4J workspaces.
   */
  Pending start(ProcessGroup group, INDArray bucket);

  /** A bucket's reduction in flight. */
  interface Pending {
    /** The collective, to wait on. */
    Work work();

    /** After {@link #work()} completed: leaves the sum in the bucket (e.g. decompresses). */
    void finish();

    /** A reduction in place: the sum is in the bucket once {@code work} completed. */
    static Pending of(Work work) {
      return new Pending() {
        @Override
        public Work work() {
          return work;
        }

        @Override
        public void finish() {}
      };
    }
  }

  /** The hook's name for logs: {@code allreduce}, {@code fp16}, {@code bf16}. */
  String name();
}
