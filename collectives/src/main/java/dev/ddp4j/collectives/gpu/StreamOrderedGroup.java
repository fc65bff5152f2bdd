package dev.ddp4j.collectives.gpu;

import dev.ddp4j.DdpException;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.Store;
import dev.ddp4j.TensorBuffer;
import dev.ddp4j.collectives.group.Subgroups;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import jcuda.driver.CUcontext;

/**
 * What the {@code cuda} and {@code nccl} groups share: a rank of {@code size} on one GPU ({@link
 * GroupDevice}), collectives ordered across the callers' streams and completing through events
 * ({@link StreamOrder}), the check that a buffer lives on this GPU, and a close that frees the
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
