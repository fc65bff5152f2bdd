package dev.ddp4j.runtime.cuda;

import dev.ddp4j.collectives.gpu.Cu;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * The communication stream of the device bucket engine, beside the stream backward runs on: {@link
 * #waitFor} orders the next all-reduce after everything queued so far on the compute stream, and
 * {@link #joinInto} orders what is queued next on the compute stream after every all-reduce queued
 * so far. Both are GPU-side waits through an event; the host never blocks. One event serves every
 * hand-off, because a stream wait binds to the event's most recent record at the time of the call.
 *
 * <pre>
 *   compute: bwd L3 ─rec─ bwd L2 ─rec─ bwd L1 ── ... ─wait─ optimizer
 *                     │           │                   ▲
 *   comm:           wait ═ AR b0  wait ═ AR b1 ═ ... ─rec
 * </pre>
 *
 * Used by {@link DeviceGradients} (device gradients of any producer) and by the ND4J CUDA device
 * comm hook. Create it with the group's context current; not thread safe.
 */
public final class CommStream implements AutoCloseable {

  /** The scheduling priority of the communication stream against the compute stream. */
  public enum Priority {
    /** The context's greatest priority: bucket kernels go ahead of queued backward kernels. */
    HIGHEST,
    /** The default priority, the same as a plain compute stream's. */
    NORMAL
  }

  private final CUstream comm = new CUstream();
  private final CUevent toComm = new CUevent();
  private final CUevent toCompute = new CUevent();

  public CommStream(Priority priority) {
    int[] least = new int[1];
    int[] greatest = new int[1];
    Cu.check(
        JCudaDriver.cuCtxGetStreamPriorityRange(least, greatest), "cuCtxGetStreamPriorityRange");
    Cu.check(
        JCudaDriver.cuStreamCreateWithPriority(
            comm,
            CUstream_flags.CU_STREAM_NON_BLOCKING,
            priority == Priority.HIGHEST ? greatest[0] : least[0]),
        "cuStreamCreateWithPriority");
    Cu.check(
        JCudaDriver.cuEventCreate(toComm, CUevent_flags.CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    Cu.check(
        JCudaDriver.cuEventCreate(toCompute, CUevent_flags.CU_EVENT_DISABLE_TIMING),
        "cuEventCreate");
  }

  /** The communication stream's handle, to queue collectives on. */
  public long handle() {
    return Cu.handle(comm);
  }

  /** Work queued on the comm stream from now on starts after all work queued so far on compute. */
  public void waitFor(long computeStream) {
    CUstream compute = Cu.stream(computeStream);
    Cu.check(JCudaDriver.cuEventRecord(toComm, compute), "cuEventRecord");
    Cu.check(JCudaDriver.cuStreamWaitEvent(comm, toComm, 0), "cuStreamWaitEvent");
  }

  /** Work queued on compute from now on starts after all work queued so far on the comm stream. */
  public void joinInto(long computeStream) {
    Cu.check(JCudaDriver.cuEventRecord(toCompute, comm), "cuEventRecord");
    Cu.check(
        JCudaDriver.cuStreamWaitEvent(Cu.stream(computeStream), toCompute, 0), "cuStreamWaitEvent");
  }

  /** Waits for the comm stream's work, then frees the stream and its events. */
  @Override
  public void close() {
    JCudaDriver.cuStreamSynchronize(comm);
    JCudaDriver.cuEventDestroy(toComm);
    JCudaDriver.cuEventDestroy(toCompute);
    JCudaDriver.cuStreamDestroy(comm);
  }
}
