package dev.ddp4j.collectives.gpu;

import dev.ddp4j.DdpException;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.Store;
import dev.ddp4j.TensorBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
  private boolean closed;

  /**
   * @param backend the backend's name ({@code cuda}, {@code nccl}), for messages
   * @param order the order of the group's collectives, over this rank's GPU, which the group owns
   *     from now on
   */
  protected StreamOrderedGroup(String backend, GroupRank member, StreamOrder order) {
    this.backend = backend;
    this.rank = member.rank();
    this.size = member.size();
    this.store = member.store();
    this.timeout = member.timeout();
    this.gpu = order.gpu();
    this.order = order;
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
    List<RuntimeException> errors = new ArrayList<>();
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
