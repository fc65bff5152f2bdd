package dev.ddp4j.collectives.gpu;

import dev.ddp4j.DataType;
import dev.ddp4j.DdpException;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Store;
import dev.ddp4j.TensorBuffer;
import dev.ddp4j.Work;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.cpu.CpuGroupOptions;
import dev.ddp4j.collectives.cpu.CpuProcessGroup;
import dev.ddp4j.collectives.group.Subgroups;
import dev.ddp4j.spi.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import jcuda.driver.CUcontext;

/**
 * The group {@code Ddp.init()} returns for the {@code cuda} and {@code nccl} backends: one group
 * for both memories, as PyTorch's default group ({@code cpu:gloo,cuda:nccl}) dispatches per tensor.
 * Collectives on {@link dev.ddp4j.DeviceBuffer}s go to the device group; collectives on {@link
 * HostBuffer}s (accuracy counts, example counts, a model ND4J computes on the CPU) go to a {@code
 * cpu} group over the same store and ranks, its "host half".
 *
 * <pre>
 *   pg.allReduce(DeviceBuffer) ──▶ device half (cuda kernels over IPC, or NCCL), on the buffer's stream
 *   pg.allReduce(HostBuffer)   ──▶ host half   (cpu group: shared memory, sockets), its progress thread
 * </pre>
 *
 * The host half is made at the first call that needs it (a host collective or {@link
 * #allocateHost}): every rank makes the same calls in the same order, so every rank makes it at the
 * same point, and a group that never touches host memory costs nothing. That first call blocks
 * until every rank has joined the host half, or fails after the timeout naming the missing ranks.
 * Each half keeps its own contract: host collectives run in issue order among themselves with the
 * cpu group's timeout and mismatch checks, device collectives in stream order among themselves; the
 * two halves are not ordered against each other (as in PyTorch), so wait for a host collective's
 * {@link Work} before a device collective that needs its result.
 *
 * <p>A subgroup ({@link #newGroup}, {@link #split}) is the device half's subgroup with a host half
 * of its own: a cpu group of the subgroup's members over the subgroup's store, made as this one's
 * at its first host call. Closing this group closes its open subgroups first.
 */
public final class HostDeviceGroup implements DeviceGroup {

  private static final AtomicInteger HOST_HALVES_IN_THIS_JVM = new AtomicInteger();

  private final DeviceGroup device;
  // What the host half is made of (collective: every rank makes it at the same call).
  private final HostHalf hostHalf;
  private final List<HostDeviceGroup> subgroups = new ArrayList<>();
  private ProcessGroup host;
  private RuntimeException hostFailure;
  private boolean closed;
  // The store connection this group closes last, when it owns it (see closingStore).
  private Store ownedStore;

  /**
   * How to make a host half: a cpu group of {@code worker} over {@code store}, named {@code name}
   * (the same on every rank and unique in {@code store}).
   */
  private record HostHalf(
      WorkerEnvironment worker,
      Store store,
      Duration timeout,
      CpuGroupOptions options,
      String name) {

    ProcessGroup start() {
      return CpuProcessGroup.create(worker, store, timeout, options, name);
    }

    /** The host half of {@code sub}, a subgroup of the group this describes the host half of. */
    HostHalf of(ProcessGroup sub) {
      return new HostHalf(
          Subgroups.memberWorker(worker, sub.rank(), sub.size()),
          sub.store(),
          timeout,
          options,
          "host");
    }
  }

  /**
   * @param device the device half, which this group owns from now on
   */
  private HostDeviceGroup(DeviceGroup device, HostHalf hostHalf) {
    this.device = device;
    this.hostHalf = hostHalf;
  }

  /**
   * {@code device} with a {@code cpu} host half over {@code store}, made when first needed with the
   * options {@code settings} give, less the device backend's meaning of {@code DDP4J_ALGO}.
   */
  public static HostDeviceGroup over(
      DeviceGroup device,
      WorkerEnvironment worker,
      Store store,
      Duration timeout,
      Settings settings) {
    // Groups are made in the same order on every rank, so the n-th name is one group's everywhere.
    String name = "host-of-" + device.backend() + HOST_HALVES_IN_THIS_JVM.getAndIncrement();
    CpuGroupOptions options = CpuGroupOptions.from(settings).withoutForcedAlgorithm();
    return new HostDeviceGroup(device, new HostHalf(worker, store, timeout, options, name));
  }

  /** The device half (for benches and tests that need the cuda or nccl group itself). */
  public DeviceGroup device() {
    return device;
  }

  /** Whether the host half has been made (by a host collective or {@link #allocateHost}). */
  public synchronized boolean hostHalfStarted() {
    return host != null;
  }

  /** The host half, made on first use; a failure to make it is kept and thrown again. */
  private synchronized ProcessGroup host(String op) {
    if (closed) {
      throw new IllegalStateException(
          op + " on rank " + rank() + ": the " + backend() + " group is closed");
    }
    if (host == null && hostFailure == null) {
      try {
        host = hostHalf.start();
      } catch (RuntimeException e) {
        hostFailure = e;
      }
    }
    if (hostFailure != null) {
      throw new DdpException(
          op
              + " on rank "
              + rank()
              + ": the "
              + backend()
              + " group's host half (a cpu group for host buffers) could not start: "
              + hostFailure.getMessage(),
          hostFailure);
    }
    return host;
  }

  /** The device half's subgroup of {@code ranks}, with a host half of its own. */
  @Override
  public Optional<ProcessGroup> newGroup(int... ranks) {
    requireOpen("newGroup");
    return device.newGroup(ranks).map(this::withHostHalf);
  }

  @Override
  public Optional<ProcessGroup> split(int color, int key) {
    requireOpen("split");
    return device.split(color, key).map(this::withHostHalf);
  }

  /** {@code sub} (the device half's subgroup) with a host half over its store, made when needed. */
  private ProcessGroup withHostHalf(ProcessGroup sub) {
    HostDeviceGroup both = new HostDeviceGroup((DeviceGroup) sub, hostHalf.of(sub));
    synchronized (this) {
      subgroups.add(both);
    }
    return both;
  }

  private synchronized void requireOpen(String op) {
    if (closed) {
      throw new IllegalStateException(
          op + " on rank " + rank() + ": the " + backend() + " group is closed");
    }
  }

  /** The half that runs {@code op} on {@code buffer}: the host half for a host buffer. */
  private ProcessGroup half(String op, TensorBuffer buffer) {
    return buffer instanceof HostBuffer ? host(op) : device;
  }

  /** The half for {@code op} from {@code input} to {@code output}, both host or both device. */
  private ProcessGroup half(String op, TensorBuffer input, TensorBuffer output) {
    return onHost(op, input, output) ? host(op) : device;
  }

  /** True if both are host buffers, false if neither is; a mix is refused. */
  private static boolean onHost(String op, TensorBuffer input, TensorBuffer output) {
    boolean in = input instanceof HostBuffer;
    boolean out = output instanceof HostBuffer;
    if (in != out) {
      throw new IllegalArgumentException(
          op
              + ": the input is "
              + (in ? "host" : "device")
              + " memory but the output is "
              + (out ? "host" : "device")
              + " memory (expected: both HostBuffers or both DeviceBuffers; copy one side first)");
    }
    return in;
  }

  @Override
  public Work allReduce(TensorBuffer input, TensorBuffer output, ReduceOp op) {
    return half("allReduce", input, output).allReduce(input, output, op);
  }

  @Override
  public Work broadcast(TensorBuffer buffer, int root) {
    return half("broadcast", buffer).broadcast(buffer, root);
  }

  @Override
  public Work allGather(TensorBuffer input, TensorBuffer output) {
    return half("allGather", input, output).allGather(input, output);
  }

  @Override
  public Work reduceScatter(TensorBuffer input, TensorBuffer output, ReduceOp op) {
    return half("reduceScatter", input, output).reduceScatter(input, output, op);
  }

  @Override
  public Work isend(TensorBuffer buffer, int dst) {
    return half("isend", buffer).isend(buffer, dst);
  }

  @Override
  public Work irecv(TensorBuffer buffer, int src) {
    return half("irecv", buffer).irecv(buffer, src);
  }

  @Override
  public Work reduce(TensorBuffer buffer, int root, ReduceOp op) {
    return half("reduce", buffer).reduce(buffer, root, op);
  }

  // gather's output and scatter's input exist only on the root: the other side picks the half.
  @Override
  public Work gather(TensorBuffer input, TensorBuffer output, int root) {
    return half("gather", input, output == null ? input : output).gather(input, output, root);
  }

  @Override
  public Work scatter(TensorBuffer input, TensorBuffer output, int root) {
    return half("scatter", input == null ? output : input, output).scatter(input, output, root);
  }

  @Override
  public Work allToAll(TensorBuffer input, TensorBuffer output) {
    return half("allToAll", input, output).allToAll(input, output);
  }

  /**
   * The host half's memory: where every rank shares one node, a block of its shared memory that
   * host all-reduces read in place. Collective, as on the cpu backend; makes the host half.
   */
  @Override
  public HostBuffer allocateHost(long count, DataType type) {
    return host("allocateHost").allocateHost(count, type);
  }

  /** The device half's barrier (host collectives in flight are not waited for, as on cuda). */
  @Override
  public Work barrier() {
    return device.barrier();
  }

  @Override
  public int rank() {
    return device.rank();
  }

  @Override
  public int size() {
    return device.size();
  }

  @Override
  public String backend() {
    return device.backend();
  }

  @Override
  public Duration timeout() {
    return device.timeout();
  }

  @Override
  public Store store() {
    return device.store();
  }

  @Override
  public int deviceIndex() {
    return device.deviceIndex();
  }

  @Override
  public CUcontext context() {
    return device.context();
  }

  @Override
  public long maxLaunchBytes() {
    return device.maxLaunchBytes();
  }

  /**
   * Closes the open subgroups (newest first), then the host half (waiting for its collectives),
   * then the device half.
   */
  @Override
  public void close() {
    ProcessGroup h;
    List<HostDeviceGroup> subs;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      h = host;
      subs = new ArrayList<>(subgroups);
      subgroups.clear();
    }
    RuntimeException first = null;
    for (int i = subs.size() - 1; i >= 0; i--) {
      try {
        subs.get(i).close();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (h != null) {
      try {
        h.close();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    try {
      device.close();
    } catch (RuntimeException e) {
      if (first == null) {
        first = e;
      } else {
        first.addSuppressed(e);
      }
    }
    if (first != null) {
      throw first; // a half still running keeps the store its peers may need to report through
    }
    if (ownedStore != null) {
      ownedStore.close();
    }
  }

  /**
   * Makes {@link #close()} also close the store, last: for the group a provider hands to {@code
   * Ddp.init}, which opened the connection for it.
   */
  HostDeviceGroup closingStore(Store store) {
    ownedStore = store;
    return this;
  }

  @Override
  public String toString() {
    return backend() + " group rank " + rank() + "/" + size() + " (host buffers: cpu group)";
  }
}
