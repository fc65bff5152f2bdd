package dev.ddp4j;

import java.time.Duration;
import java.util.Optional;

/**
 * A fixed set of {@link #size()} processes that run collectives together; this process is {@link
 * #rank()}. Obtain one from {@link Ddp#init()}.
 *
 * <p>Contract, as in PyTorch's c10d and NCCL: every rank calls the same collectives in the same
 * order with the same count, dtype, op and root. Each call returns at once with a {@link Work};
 * collectives run in issue order. A collective that cannot finish within the group's {@link
 * #timeout()} fails on every live rank with an error naming the ranks that never arrived. Every
 * backend takes {@link HostBuffer}s; the {@code cuda} and {@code nccl} backends also take {@link
 * DeviceBuffer}s on this rank's GPU, and run host buffers through a {@code cpu} group of their own
 * (made at the first host collective), as PyTorch's default group does. Host and device collectives
 * are each ordered among themselves, not against each other. Input and output of one call are in
 * the same memory. Methods are safe to call from one thread at a time.
 */
public interface ProcessGroup extends AutoCloseable {

  /** This process's rank, {@code 0 <= rank < size}. */
  int rank();

  /** The number of ranks. */
  int size();

  /** The backend's name: {@code cpu}, {@code cuda} or {@code nccl}. */
  String backend();

  /** How long a collective may take before it fails with {@link DdpTimeoutException}. */
  Duration timeout();

  /** The key-value store this group rendezvoused through (shared by all ranks). */
  Store store();

  /**
   * Reduces {@code buffer} across ranks with {@code op} and leaves the result in every rank's
   * buffer.
   */
  default Work allReduce(TensorBuffer buffer, ReduceOp op) {
    return allReduce(buffer, buffer, op);
  }

  /**
   * Reduces {@code input} across ranks with {@code op} into every rank's {@code output} (same count
   * and dtype; {@code input} is left unchanged, and may be the same buffer as {@code output}).
   */
  Work allReduce(TensorBuffer input, TensorBuffer output, ReduceOp op);

  /** Copies rank {@code root}'s {@code buffer} into every other rank's {@code buffer}. */
  Work broadcast(TensorBuffer buffer, int root);

  /**
   * Concatenates every rank's {@code input} in rank order into every rank's {@code output}; {@code
   * output.count() == input.count() * size()}.
   */
  Work allGather(TensorBuffer input, TensorBuffer output);

  /**
   * Reduces {@code input} across ranks and leaves block {@code rank} of the result in {@code
   * output}; {@code input.count() == output.count() * size()}.
   */
  Work reduceScatter(TensorBuffer input, TensorBuffer output, ReduceOp op);

  /**
   * Starts sending {@code buffer} to rank {@code dst}. Messages between one pair of ranks match in
   * issue order; the two ranks may issue a send and its receive in either order, and two ranks may
   * each send to the other before either receives, at any size, without deadlock. Point-to-point
   * messages take no slot in the group's collective sequence: {@link Work#sequenceNumber()} counts
   * this pair's messages in this direction.
   */
  Work isend(TensorBuffer buffer, int dst);

  /**
   * Starts receiving into {@code buffer} the next message rank {@code src} sends this rank; the
   * message must have the same count and dtype, else both sides fail with {@link
   * CollectiveMismatchException} naming both shapes.
   */
  Work irecv(TensorBuffer buffer, int src);

  /** {@link #isend} and wait for it (within {@link #timeout()}). */
  default void send(TensorBuffer buffer, int dst) {
    isend(buffer, dst).await();
  }

  /** {@link #irecv} and wait for it (within {@link #timeout()}). */
  default void recv(TensorBuffer buffer, int src) {
    irecv(buffer, src).await();
  }

  /**
   * Reduces every rank's {@code buffer} with {@code op} into rank {@code root}'s buffer; the other
   * ranks' buffers are left unchanged.
   */
  Work reduce(TensorBuffer buffer, int root, ReduceOp op);

  /**
   * Concatenates every rank's {@code input} in rank order into rank {@code root}'s {@code output}
   * ({@code output.count() == input.count() * size()}); {@code output} is read only on the root and
   * may be null elsewhere.
   */
  Work gather(TensorBuffer input, TensorBuffer output, int root);

  /**
   * Sends block {@code i} of rank {@code root}'s {@code input} ({@code input.count() ==
   * output.count() * size()}) to rank {@code i}'s {@code output}; {@code input} is read only on the
   * root and may be null elsewhere.
   */
  Work scatter(TensorBuffer input, TensorBuffer output, int root);

  /**
   * Sends block {@code j} of every rank's {@code input} to rank {@code j}: rank {@code i}'s output
   * block {@code k} is rank {@code k}'s input block {@code i}. Both buffers have the same count, a
   * multiple of {@link #size()}, and must not overlap.
   */
  Work allToAll(TensorBuffer input, TensorBuffer output);

  /**
   * Allocates zeroed host memory for {@code count} elements of {@code type} that collectives may
   * read faster than other memory, as NCCL's registered buffers or MPI's shared windows. On the
   * {@code cpu} backend, where every rank shares one node, each rank's block is mapped by all
   * ranks, and an all-reduce whose buffers on every rank lie in such blocks reads peers' bytes in
   * place (from {@code DDP4J_SHARED_MIN_BYTES}) instead of copying them through shared-memory
   * rings. Elsewhere it is plain direct memory.
   *
   * <p>Collective: every rank calls it with the same count and type, in the same place in its
   * sequence of collectives and allocations. The memory stays valid until {@link #close()}, which
   * frees it: do not touch the buffer afterwards.
   */
  default HostBuffer allocateHost(long count, DataType type) {
    long bytes = type.bytesFor(count);
    if (count < 0 || bytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "count : "
              + count
              + " "
              + type
              + " elements (expected: 0 to "
              + Integer.MAX_VALUE / type.sizeBytes()
              + "; allocate larger tensors as several buffers)");
    }
    return HostBuffer.of(
        java.nio.ByteBuffer.allocateDirect((int) bytes).order(java.nio.ByteOrder.nativeOrder()),
        type);
  }

  /**
   * Collective over this group: every rank calls it with the same ranks (ascending order not
   * required; duplicates or out-of-range ranks are an {@link IllegalArgumentException} naming
   * them). Members get a group whose rank {@code i} is {@code ranks[i]} of this group (PyTorch's
   * {@code new_group}); non-members get {@link Optional#empty()}. Ranks that pass different lists
   * fail with {@link CollectiveMismatchException} naming both lists; a rank that does not call it
   * within {@link #timeout()} makes the others fail with {@link DdpTimeoutException} naming it.
   *
   * <p>The subgroup has this group's backend and timeout and plans for its own members (its own
   * rings and algorithms); its {@link #store()} is a key-prefixed view of this group's store.
   * Closing it leaves this group usable; closing this group closes its open subgroups first.
   * Subgroups of subgroups work alike.
   */
  Optional<ProcessGroup> newGroup(int... ranks);

  /**
   * Collective ({@code MPI_Comm_split}, {@code ncclCommSplit}): ranks passing the same {@code
   * color} form one group, ordered by ({@code key}, rank in this group); {@code color < 0} means
   * "no group" and returns {@link Optional#empty()}. Otherwise as {@link #newGroup}.
   */
  Optional<ProcessGroup> split(int color, int key);

  /** Completes once every rank has called it. */
  Work barrier();

  /**
   * Leaves the group: waits for this rank's collectives in flight up to the timeout, then releases
   * transports, shared memory and the store connection. Collectives called afterwards fail.
   */
  @Override
  void close();
}
