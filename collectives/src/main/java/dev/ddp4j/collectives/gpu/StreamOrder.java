package dev.ddp4j.collectives.gpu;

import java.time.Duration;
import java.util.function.Supplier;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * The order of one device group's collectives: each runs on its buffer's stream after the work
 * queued there, and after the group's previous collective when that ran on another stream (this
 * stream waits for its event). Each collective's {@link CudaWork} completes through an event
 * recorded after it and carries the next sequence number. Not thread safe: its group issues one
 * collective at a time.
 */
public final class StreamOrder {

  private final GroupDevice gpu;
  private final Duration timeout;

  /** The thread that last made the context current through this order. */
  private Thread contextThread;

  private long lastStreamHandle = Long.MIN_VALUE;
  private CUstream lastStream;
  private CudaWork lastWork;
  private long collectiveSeq;

  /**
   * @param timeout the works' default wait
   */
  public StreamOrder(GroupDevice gpu, Duration timeout) {
    this.gpu = gpu;
    this.timeout = timeout;
  }

  /** The GPU the collectives run on. */
  public GroupDevice gpu() {
    return gpu;
  }

  /** Notes that the calling thread has the context current already (it just made it so). */
  public void contextCurrentHere() {
    contextThread = Thread.currentThread();
  }

  /**
   * Makes the context current and orders this call after the previous one on another stream.
   *
   * @return the stream of {@code streamHandle}
   */
  public CUstream begin(long streamHandle) {
    // The caller's thread keeps this context current between calls unless it switches contexts
    // itself (the runtime API, ND4J included, uses the same primary context), so set it once per
    // thread rather than on every call.
    if (Thread.currentThread() != contextThread) {
      Cu.check(JCudaDriver.cuCtxSetCurrent(gpu.context()), "cuCtxSetCurrent");
      contextThread = Thread.currentThread();
    }
    if (streamHandle != lastStreamHandle) {
      lastStream = Cu.stream(streamHandle);
      lastStreamHandle = streamHandle;
      if (lastWork != null) {
        lastWork.orderBefore(lastStream);
      }
    }
    return lastStream;
  }

  /** The sequence number the next collective's work will carry. */
  public long nextSequence() {
    return collectiveSeq;
  }

  /**
   * Records an event after what was queued on {@code stream} and returns the work that completes
   * with it, numbered {@link #nextSequence()}; the next call on another stream waits for it.
   *
   * @param failure where the group fails its pending works at once (null: only through the event)
   */
  public CudaWork complete(CUstream stream, Supplier<String> what, CudaWork.GroupFailure failure) {
    CUevent event = gpu.events().take();
    Cu.check(JCudaDriver.cuEventRecord(event, stream), "cuEventRecord");
    CudaWork w =
        new CudaWork(collectiveSeq++, what, timeout, gpu.context(), gpu.events(), event, failure);
    lastWork = w;
    return w;
  }
}
