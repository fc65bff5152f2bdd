package userland;

import dev.ddp4j.Work;
import dev.ddp4j.collectives.stall.CollectiveLedger;

/** Stands for user code outside ddp4j's packages, where a call site is looked for. */
public final class CollectiveCaller {
  private CollectiveCaller() {}

  public static void issue(CollectiveLedger ledger, Work work, String what) {
    ledger.issued(work, () -> what);
  }
}
