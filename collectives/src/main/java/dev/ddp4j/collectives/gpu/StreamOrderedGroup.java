package dev.ddp4j.collectives.gpu;

import dev.ddp4j.DdpException;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Store;
import dev.ddp4j.TensorBuffer;
import dev.ddp4j.Work;
import dev.ddp4j.collectives.group.Subgroups;
import dev.ddp4j.spi.CollectiveChecks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import jcuda.driver.CUcontext;

/**
 * What the {@code cuda} and {@code nccl} groups share: a rank of {@code size} on one GPU ({@link
 * GroupDevice}), collectives ordered across the callers' streams and completing through events
 * ({@link StreamOrder}), every collective's argument checks (one place for both: the backend gets
 * checked device buffers), the check that a buffer lives on this GPU, and a close that frees the
 * device's parts once the backend has stopped its collectives. The backend says how the data moves.
 */
public abstract class StreamOrderedGroup implements DeviceGroup {

  private final String backend;
  protected final int rank;
  protected final int size;
  protected final Store store;
  protected final Duration timeout;
  protected final GroupDevice gpu;
  protected final StreamOrder order;
  private final Subgroups subgroups;
  private boolean closed;

  /**
   * @param backend the backend's name ({@code cuda}, {@code nccl}), for messages
   * @param order the order of the group's collectives, over this rank's GPU, which the group owns
   *     from now on
   * @param keyPrefix the group's own keys in the store (its subgroups' agreement goes under it)
   */
  protected StreamOrderedGroup(
      String backend, GroupRank member, StreamOrder order, String keyPrefix) {
    this.backend = backend;
    this.rank = member.rank();
    this.size = member.size();
    this.store = member.store();
    this.timeout = member.timeout();
    this.gpu = order.gpu();
    this.order = order;
    this.subgroups = new Subgroups(store, keyPrefix + "/", rank, size, timeout);
  }

  /** A group of {@code ranks} of this one, on this rank's GPU ({@link Subgroups}). */
  @Override
  public final Optional<ProcessGroup> newGroup(int... ranks) {
    requireOpen("newGroup");
    return subgroups.newGroup(ranks, this::subgroup).map(ProcessGroup.class::cast);
  }

  @Override
  public final Optional<ProcessGroup> split(int color, int key) {
    requireOpen("split");
    return subgroups.split(color, key, this::subgroup).map(ProcessGroup.class::cast);
  }

  /**
   * This member's subgroup of the backend, on this rank's GPU, over {@code m}'s store view, planned
   * for its members (collective over them).
   */
  protected abstract DeviceGroup subgroup(Subgroups.Membership m);

  private void requireOpen(String op) {
    if (closed) {
      throw new IllegalStateException(
          op + " on rank " + rank + ": the " + backend + " group is closed");
    }
  }

  @Override
  public int deviceIndex() {
    return gpu.index();
  }

  /** The primary context of this group's device, which callers' buffers live in. */
  @Override
  public CUcontext context() {
    return gpu.context();
  }

  @Override
  public int rank() {
    return rank;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public String backend() {
    return backend;
  }

  @Override
  public Duration timeout() {
    return timeout;
  }

  @Override
  public Store store() {
    return store;
  }

  /** {@code b} as a device buffer on this group's GPU; refused once the group is closed. */
  protected final DeviceBuffer deviceBuffer(String op, TensorBuffer b) {
    if (closed) {
      throw new IllegalStateException(
          op + " on rank " + rank + ": the " + backend + " group is closed");
    }
    return DeviceBuffers.on(backend, op, rank, gpu.index(), b);
  }

  // The collectives: checked here once for both backends, each run by the backend on the stream
  // of the buffer named (the one whose work it orders after), with what it is for messages.

  @Override
  public final Work allReduce(TensorBuffer input, TensorBuffer output, ReduceOp op) {
    CollectiveChecks.sameShape("allReduce", input, output);
    DeviceBuffer in = deviceBuffer("allReduce", input);
    DeviceBuffer out = deviceBuffer("allReduce", output);
    return runAllReduce(in, out, op, what("allReduce", in, op, -1));
  }

  @Override
  public final Work broadcast(TensorBuffer buffer, int root) {
    CollectiveChecks.root("broadcast", root, size);
    DeviceBuffer b = deviceBuffer("broadcast", buffer);
    return runBroadcast(b, root, what("broadcast", b, null, root));
  }

  @Override
  public final Work allGather(TensorBuffer input, TensorBuffer output) {
    CollectiveChecks.gathered("allGather", input, output, size);
    DeviceBuffer in = deviceBuffer("allGather", input);
    DeviceBuffer out = deviceBuffer("allGather", output);
    DeviceBuffers.blockOrDisjoint("allGather", rank, in, out);
    return runAllGather(in, out, what("allGather", in, null, -1));
  }

  @Override
  public final Work reduceScatter(TensorBuffer input, TensorBuffer output, ReduceOp op) {
    CollectiveChecks.gathered("reduceScatter", output, input, size);
    DeviceBuffer in = deviceBuffer("reduceScatter", input);
    DeviceBuffer out = deviceBuffer("reduceScatter", output);
    DeviceBuffers.blockOrDisjoint("reduceScatter", rank, out, in);
    return runReduceScatter(in, out, op, what("reduceScatter", out, op, -1));
  }

  @Override
  public final Work isend(TensorBuffer buffer, int dst) {
    CollectiveChecks.peer("isend", dst, rank, size);
    DeviceBuffer b = deviceBuffer("isend", buffer);
    return pointToPoint("isend").isend(b, dst);
  }

  @Override
  public final Work irecv(TensorBuffer buffer, int src) {
    CollectiveChecks.peer("irecv", src, rank, size);
    DeviceBuffer b = deviceBuffer("irecv", buffer);
    return pointToPoint("irecv").irecv(b, src);
  }

  @Override
  public final Work reduce(TensorBuffer buffer, int root, ReduceOp op) {
    CollectiveChecks.root("reduce", root, size);
    DeviceBuffer b = deviceBuffer("reduce", buffer);
    return runReduce(b, root, op, what("reduce", b, op, root));
  }

  @Override
  public final Work gather(TensorBuffer input, TensorBuffer output, int root) {
    CollectiveChecks.gather(input, output, root, rank, size);
    DeviceBuffer in = deviceBuffer("gather", input);
    DeviceBuffer out = rootOnly("gather", in, output, root);
    return runGather(in, out, root, what("gather", in, null, root));
  }

  @Override
  public final Work scatter(TensorBuffer input, TensorBuffer output, int root) {
    CollectiveChecks.scatter(input, output, root, rank, size);
    DeviceBuffer out = deviceBuffer("scatter", output);
    DeviceBuffer in = rootOnly("scatter", out, input, root);
    return runScatter(in, out, root, what("scatter", out, null, root));
  }

  /** What a call is, for messages ({@code redop} null, {@code root} -1: none), made when asked. */
  private static Supplier<String> what(String op, DeviceBuffer b, ReduceOp redop, int root) {
    return () ->
        op
            + "("
            + b.count()
            + " "
            + b.dataType()
            + (redop == null ? "" : ", " + redop)
            + (root < 0 ? "" : ", root " + root)
            + ")";
  }

  /** Root's whole buffer of a gather or scatter, checked against this rank's block; else null. */
  private DeviceBuffer rootOnly(String op, DeviceBuffer block, TensorBuffer whole, int root) {
    if (rank != root) {
      return null;
    }
    DeviceBuffer w = deviceBuffer(op, whole);
    DeviceBuffers.blockOrDisjoint(op, rank, block, w);
    return w;
  }

  @Override
  public final Work allToAll(TensorBuffer input, TensorBuffer output) {
    CollectiveChecks.allToAll(input, output, size);
    DeviceBuffer in = deviceBuffer("allToAll", input);
    DeviceBuffer out = deviceBuffer("allToAll", output);
    DeviceBuffers.disjoint("allToAll", in, out);
    return runAllToAll(in, out, what("allToAll", in, null, -1));
  }

  /** On {@code in}'s stream. */
  protected abstract Work runAllReduce(
      DeviceBuffer in, DeviceBuffer out, ReduceOp op, Supplier<String> what);

  protected abstract Work runBroadcast(DeviceBuffer b, int root, Supplier<String> what);

  /** On {@code out}'s stream. */
  protected abstract Work runAllGather(DeviceBuffer in, DeviceBuffer out, Supplier<String> what);

  /** On {@code in}'s stream. */
  protected abstract Work runReduceScatter(
      DeviceBuffer in, DeviceBuffer out, ReduceOp op, Supplier<String> what);

  /** The backend's point-to-point, or why this group has none ({@code op} for the message). */
  protected abstract PointToPoint pointToPoint(String op);

  protected abstract Work runReduce(DeviceBuffer b, int root, ReduceOp op, Supplier<String> what);

  /** On {@code in}'s stream; {@code out} is null off root. */
  protected abstract Work runGather(
      DeviceBuffer in, DeviceBuffer out, int root, Supplier<String> what);

  /** On {@code out}'s stream; {@code in} is null off root. */
  protected abstract Work runScatter(
      DeviceBuffer in, DeviceBuffer out, int root, Supplier<String> what);

  /** On {@code out}'s stream. */
  protected abstract Work runAllToAll(DeviceBuffer in, DeviceBuffer out, Supplier<String> what);

  /**
   * Stops the backend's collectives ({@link #closeCollectives}), then frees the GPU's parts; throws
   * once at the end with every error met on the way.
   */
  @Override
  public final void close() {
    if (closed) {
      return;
    }
    closed = true;
    // Subgroups first (every member closes them in the same order before their parents).
    List<RuntimeException> errors = new ArrayList<>(subgroups.closeAll());
    closeCollectives(errors);
    gpu.release();
    if (!errors.isEmpty()) {
      DdpException e =
          new DdpException("closing the " + backend + " group on rank " + rank + " failed");
      errors.forEach(e::addSuppressed);
      throw e;
    }
  }

  /**
   * Waits for (or gives up on) this rank's collectives and frees what the backend holds, adding
   * what fails to {@code errors}; leaves the context current and nothing queued on the internal
   * stream.
   */
  protected abstract void closeCollectives(List<RuntimeException> errors);
}
