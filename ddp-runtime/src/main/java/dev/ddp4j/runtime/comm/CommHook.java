package dev.ddp4j.runtime.comm;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.Work;

/**
 * How DdpModel communicates one bucket, like PyTorch DDP's comm hooks: plain all-reduce, compressed
 * to fp16 / bf16 on the wire, PowerSGD ({@link CommHooks}), or a user's own, with state of its own
 * ({@link #of}). A hook must leave in the bucket the sum over all ranks (DdpModel scales it
 * afterwards), the same on every rank, and every rank must use the same hook and issue the same
 * collectives in the same order. One hook instance serves one DdpModel: a stateful hook keys its
 * state by {@link GradBucket#index()}.
 */
public interface CommHook {

  /**
   * Starts summing {@code bucket} over every rank of {@code group}, communicating through {@link
   * GradBucket#allReduce} so that it works in host and device memory alike. Called on the training
   * thread while backward runs, outside ND4J workspaces, once per bucket and step in bucket order.
   */
  Pending start(ProcessGroup group, GradBucket bucket);

  /** The hook's name for logs: {@code allreduce}, {@code fp16}, {@code bf16}, {@code powersgd}. */
  String name();

  /** A bucket's reduction in flight. */
  interface Pending {
    /** The collective, to wait on. */
    Work work();

    /**
     * After {@link #work()} completed: leaves the sum in the bucket (e.g. decompresses; may start
     * and wait for further collectives, each within the group's timeout).
     */
    void finish();

    /** A reduction in place: the sum is in the bucket once {@code work} completed. */
    static Pending of(Work work) {
      return of(work, () -> {});
    }

    /** {@code work}, then {@code finish} once it completed. */
    static Pending of(Work work, Runnable finish) {
      return new Pending() {
        @Override
        public Work work() {
          return work;
        }

        @Override
        public void finish() {
          finish.run();
        }
      };
    }
  }

  /**
   * A hook's work on one bucket, given the hook's state (PyTorch's {@code hook(state, bucket)}).
   */
  @FunctionalInterface
  interface StatefulStart<S> {
    Pending start(S state, ProcessGroup group, GradBucket bucket);
  }

  /**
   * A hook named {@code name} that runs {@code start} with {@code state}, the user's object that
   * lives across buckets and steps (PyTorch's {@code register_comm_hook(state, hook)}).
   */
  static <S> CommHook of(String name, S state, StatefulStart<S> start) {
    if (name == null || name.isBlank() || start == null) {
      throw new IllegalArgumentException(
          "CommHook.of(name '"
              + name
              + "', state, start "
              + start
              + ") (expected: a name and a start function)");
    }
    return new CommHook() {
      @Override
      public Pending start(ProcessGroup group, GradBucket bucket) {
        return start.start(state, group, bucket);
      }

      @Override
      public String name() {
        return name;
      }
    };
  }
}
