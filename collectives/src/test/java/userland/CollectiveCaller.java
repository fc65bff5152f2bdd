package userland;

import dev.ddp4j.Work;
import dev.ddp4j.collectives.stall.CollectiveLedger;
import java.util.concurrent.CountDownLatch;

/** Stands for user code outside ddp4j's packages, where a call site is looked for. */
public final class CollectiveCaller {
  private CollectiveCaller() {}

  /** Issues {@code work} into {@code ledger}, then blocks here until {@code release} opens. */
  public static void issueAndWait(
      CollectiveLedger ledger,
      Work work,
      String what,
      CountDownLatch issued,
      CountDownLatch release)
      throws InterruptedException {
    ledger.issued(work, () -> what);
    issued.countDown();
    release.await();
  }
}
