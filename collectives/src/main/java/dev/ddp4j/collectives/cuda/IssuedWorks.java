package dev.ddp4j.collectives.cuda;

import dev.ddp4j.Work;
import dev.ddp4j.collectives.gpu.CudaWork;
import dev.ddp4j.collectives.gpu.StreamOrder;
import dev.ddp4j.collectives.stall.StallInspector;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Supplier;
import jcuda.driver.CUstream;

/**
 * A cuda group's works: the {@link CudaRoute.Completion} its route ends each collective with (the
 * event, the stall inspector's record), and the works not yet seen finished, which the group
 * retires now and then and waits for when it closes. Not thread safe, as its group.
 */
final class IssuedWorks implements CudaRoute.Completion {

  private final StreamOrder order;
  private final StallInspector stalls;
  private final ArrayDeque<CudaWork> inflight = new ArrayDeque<>();

  /** The route's failure where a part of it runs beside the streams; set once it is open. */
  private CudaWork.GroupFailure routeFailure;

  IssuedWorks(StreamOrder order, StallInspector stalls) {
    this.order = order;
    this.stalls = stalls;
  }

  /** Fails the works with {@code route}'s failure where it has a part beside the streams. */
  void failWith(CudaRoute route) {
    // A hierarchical column between hosts runs beside the streams: its failure fails the works.
    routeFailure = route instanceof HierarchicalRoute ? route::failure : null;
  }

  @Override
  public Work after(CUstream stream, Supplier<String> what) {
    CudaWork w = order.complete(stream, what, routeFailure);
    inflight.addLast(w);
    stalls.issued(w, what);
    return w;
  }

  /**
   * Retires finished works now and then, so that their events return to the pool; a poll is a
   * driver call, so not on every collective.
   */
  void retireSome() {
    if (inflight.size() > 64 && (order.nextSequence() & 15) == 0) {
      while (!inflight.isEmpty() && inflight.peekFirst().poll()) {
        inflight.removeFirst();
      }
    }
  }

  /** Waits for every work not seen finished, adding each failure to {@code errors}. */
  void awaitAll(Duration timeout, List<RuntimeException> errors) {
    for (CudaWork w : inflight) {
      try {
        w.await(timeout);
      } catch (RuntimeException e) {
        errors.add(e);
      }
    }
    inflight.clear();
  }
}
