package dev.ddp4j.testing;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Store;
import dev.ddp4j.TensorBuffer;
import dev.ddp4j.Work;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.gpu.DeviceGroup;
import dev.ddp4j.collectives.group.Subgroups;
import dev.ddp4j.collectives.store.StoreBarrier;
import dev.ddp4j.spi.FutureWork;
import java.time.Duration;
import java.util.Optional;
import jcuda.driver.CUcontext;

/**
 * The device half of a {@code cuda} group where there is no GPU (CI): it answers as a cuda group of
 * this rank would ({@code backend()} is {@code cuda}, GPU {@code LOCAL_RANK}), runs its barrier
 * through the store, and fails every collective on buffers in one line naming the call, so a test
 * sees at once if host buffers were sent to the device half.
 */
public final class StandInDeviceGroup implements DeviceGroup {

  /** What a collective on this stand-in throws, followed by the call's name. */
  public static final String REFUSAL = "stand-in device half (no GPU) got ";

  private final WorkerEnvironment worker;
  private final Store store;
  private final Duration timeout;
  private final Subgroups subgroups;
  private long barriers;
  private boolean closed;

  public StandInDeviceGroup(WorkerEnvironment worker, Store store, Duration timeout) {
    this.worker = worker;
    this.store = store;
    this.timeout = timeout;
    this.subgroups =
        new Subgroups(
            store,
            "stand-in-device/" + worker.restartCount() + "/",
            worker.rank(),
            worker.worldSize(),
            timeout);
  }

  /** Subgroups agreed as every backend's ({@link Subgroups}), each a stand-in over its view. */
  @Override
  public Optional<ProcessGroup> newGroup(int... ranks) {
    return subgroups.newGroup(ranks, this::subgroup).map(ProcessGroup.class::cast);
  }

  @Override
  public Optional<ProcessGroup> split(int color, int key) {
    return subgroups.split(color, key, this::subgroup).map(ProcessGroup.class::cast);
  }

  private StandInDeviceGroup subgroup(Subgroups.Membership m) {
    return new StandInDeviceGroup(m.worker(worker), m.store(), timeout);
  }

  private Work refuse(String op, TensorBuffer b) {
    throw new UnsupportedOperationException(REFUSAL + op + "(" + b + ")");
  }

  @Override
  public Work allReduce(TensorBuffer input, TensorBuffer output, ReduceOp op) {
    return refuse("allReduce", input);
  }

  @Override
  public Work broadcast(TensorBuffer buffer, int root) {
    return refuse("broadcast", buffer);
  }

  @Override
  public Work allGather(TensorBuffer input, TensorBuffer output) {
    return refuse("allGather", input);
  }

  @Override
  public Work reduceScatter(TensorBuffer input, TensorBuffer output, ReduceOp op) {
    return refuse("reduceScatter", input);
  }

  @Override
  public Work isend(TensorBuffer buffer, int dst) {
    return refuse("isend", buffer);
  }

  @Override
  public Work irecv(TensorBuffer buffer, int src) {
    return refuse("irecv", buffer);
  }

  @Override
  public Work reduce(TensorBuffer buffer, int root, ReduceOp op) {
    return refuse("reduce", buffer);
  }

  @Override
  public Work gather(TensorBuffer input, TensorBuffer output, int root) {
    return refuse("gather", input);
  }

  @Override
  public Work scatter(TensorBuffer input, TensorBuffer output, int root) {
    return refuse("scatter", output);
  }

  @Override
  public Work allToAll(TensorBuffer input, TensorBuffer output) {
    return refuse("allToAll", input);
  }

  @Override
  public Work barrier() {
    long n = barriers++;
    StoreBarrier.await(
        store, "stand-in-device/" + worker.restartCount() + "/" + n, rank(), size(), timeout);
    return FutureWork.completed(n, "barrier()");
  }

  @Override
  public int rank() {
    return worker.rank();
  }

  @Override
  public int size() {
    return worker.worldSize();
  }

  @Override
  public String backend() {
    return "cuda";
  }

  @Override
  public Duration timeout() {
    return timeout;
  }

  @Override
  public Store store() {
    return store;
  }

  @Override
  public int deviceIndex() {
    return worker.localRank();
  }

  @Override
  public CUcontext context() {
    return new CUcontext();
  }

  /** Whether {@link #close()} ran (the owning group must close its halves). */
  public boolean closed() {
    return closed;
  }

  @Override
  public void close() {
    subgroups.closeAll();
    closed = true;
  }
}
