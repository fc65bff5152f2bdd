package dev.ddp4j.collectives.stall;

import dev.ddp4j.spi.FutureWork;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * What the stall inspector costs. On a collective's path: {@link CollectiveLedger#issued} (an
 * entry, a lock), against making the FutureWork alone; and the alternative it replaced, a {@link
 * StackWalker} walk to the first frame outside ddp4j on every call. Off that path, on the
 * inspector's thread once or twice per heartbeat: the call site taken from another thread's stack.
 * Run it with {@code bench/call-site-bench.sh [ROUNDS]} (default 5).
 *
 * <p>It sits in the stall package, in the bench module, so that it times the package-private {@link
 * CallSite#of} itself without a public back door in the product (the class path joins the two
 * halves of the package; nothing runs them as JPMS modules).
 */
public final class CallSiteBench {

  private static final int CALLS = 200_000;
  private static final StackWalker WALKER = StackWalker.getInstance();
  private static volatile Object sink;

  private CallSiteBench() {}

  public static void main(String[] args) throws InterruptedException {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    Thread parked = new Thread(CallSiteBench::parkDeep, "parked-user-thread");
    parked.setDaemon(true);
    parked.start();
    Thread.sleep(100);
    for (int round = 0; round < rounds; round++) {
      double base = perCall(false, false);
      double ledger = perCall(true, false);
      double walker = perCall(false, true);
      long t0 = System.nanoTime();
      int samples = 2_000;
      for (int i = 0; i < samples; i++) {
        sink = CallSite.of(parked);
      }
      double siteUs = (System.nanoTime() - t0) / 1e3 / samples;
      System.out.printf(
          Locale.ROOT,
          "round %d: per collective: work alone %.0f ns, ledger +%.0f ns, a StackWalker walk"
              + " instead +%.0f ns; per heartbeat: a call site from a parked thread 20 frames deep"
              + " %.1f us%n",
          round,
          base,
          ledger - base,
          walker - base,
          siteUs);
    }
  }

  private static double perCall(boolean ledger, boolean walk) {
    CollectiveLedger l = new CollectiveLedger("bench");
    long t0 = System.nanoTime();
    for (int i = 0; i < CALLS; i++) {
      FutureWork w = new FutureWork(i, "allReduce", Duration.ZERO, List::of);
      if (ledger) {
        l.issued(w, () -> "allReduce");
      }
      if (walk) { // the walk the ledger would do: past 4 frames of ddp4j to the caller's
        sink = WALKER.walk(s -> s.skip(4).findFirst().orElse(null));
      }
      w.complete(); // finished, so the ledger's queue stays short as in a running job
      sink = w;
    }
    return (System.nanoTime() - t0) / (double) CALLS;
  }

  private static void parkDeep() {
    deep(20);
  }

  private static void deep(int n) {
    if (n > 0) {
      deep(n - 1);
      return;
    }
    while (true) {
      java.util.concurrent.locks.LockSupport.park();
    }
  }
}
