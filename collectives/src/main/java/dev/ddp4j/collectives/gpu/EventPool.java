package dev.ddp4j.collectives.gpu;

import java.util.concurrent.ConcurrentLinkedDeque;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.JCudaDriver;

/**
 * Reusable timing-free CUDA events of one context, so that a collective allocates none. Shared by
 * the cuda and nccl backends.
 */
public final class EventPool {

  private final ConcurrentLinkedDeque<CUevent> free = new ConcurrentLinkedDeque<>();
  private int created;

  /** An event from the pool, or a new one; needs the context current. */
  public CUevent take() {
    CUevent e = free.pollFirst();
    if (e == null) {
      e = new CUevent();
      Cu.check(
          JCudaDriver.cuEventCreate(e, CUevent_flags.CU_EVENT_DISABLE_TIMING), "cuEventCreate");
      created++;
    }
    return e;
  }

  public void release(CUevent e) {
    free.addFirst(e);
  }

  int created() {
    return created;
  }

  /** Destroys the pooled events; needs the context current. */
  public void destroy() {
    for (CUevent e; (e = free.pollFirst()) != null; ) {
      JCudaDriver.cuEventDestroy(e);
    }
  }
}
