package dev.ddp4j.launcher.workers;

import dev.ddp4j.Ddp;
import dev.ddp4j.InitOptions;
import dev.ddp4j.Store;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.store.StoreBarrier;
import java.time.Duration;

/**
 * Test worker: joins the store the launcher set up, prints what it was told, passes a barrier and
 * exits 0. With argument {@code failFirstAttempt=R}, rank R exits 5 on the first attempt instead.
 */
public final class BarrierWorker {
  private BarrierWorker() {}

  public static void main(String[] args) {
    WorkerEnvironment w =
        WorkerEnvironment.resolve(InitOptions.fromEnvironment(), dev.ddp4j.spi.Settings.process());
    for (String a : args) {
      if (a.startsWith("failFirstAttempt=")
          && w.restartCount() == 0
          && w.rank() == Integer.parseInt(a.substring(17))) {
        System.err.println("rank " + w.rank() + " fails its first attempt on purpose");
        System.exit(5);
      }
    }
    System.out.println(
        "rank="
            + w.rank()
            + " world="
            + w.worldSize()
            + " local="
            + w.localRank()
            + "/"
            + w.localWorldSize()
            + " group="
            + w.groupRank()
            + " restart="
            + w.restartCount()
            + " omp="
            + System.getenv("OMP_NUM_THREADS")
            + " pid="
            + ProcessHandle.current().pid());
    try (Store s = Ddp.connectStore(w, Duration.ofSeconds(60))) {
      StoreBarrier.await(
          s, "test/" + w.restartCount(), w.rank(), w.worldSize(), Duration.ofSeconds(60));
    }
    System.out.println("passed barrier");
  }
}
