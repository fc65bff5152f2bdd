package dev.ddp4j.examples;

import dev.ddp4j.Ddp;
import dev.ddp4j.InitOptions;
import dev.ddp4j.Store;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.spi.Settings;

/**
 * The smallest ddp4j program: joins the job's store, says who it is, waits at a barrier with every
 * other rank, and exits 0. {@code java -jar launcher/target/launcher.jar --nproc-per-node=4
 * --classpath examples/target/examples.jar StoreBarrier}.
 */
public final class StoreBarrier {

  private StoreBarrier() {}

  public static void main(String[] args) {
    InitOptions options = InitOptions.fromEnvironment();
    WorkerEnvironment me = WorkerEnvironment.resolve(options, Settings.process());
    System.out.println(
        "rank "
            + me.rank()
            + " of "
            + me.worldSize()
            + " (local rank "
            + me.localRank()
            + " on node "
            + me.groupRank()
            + "), store "
            + me.initMethod());
    try (Store store = Ddp.connectStore(me, options.timeout())) {
      dev.ddp4j.collectives.store.StoreBarrier.await(
          store, "examples/StoreBarrier", me.rank(), me.worldSize(), options.timeout());
    }
    System.out.println("rank " + me.rank() + " passed the barrier");
  }
}
