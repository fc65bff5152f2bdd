package dev.ddp4j.launcher.workers;

import dev.ddp4j.Ddp;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import java.util.concurrent.CountDownLatch;

/**
 * Test worker: every rank joins the group and prints its pid; rank {@code args[0]} then never calls
 * the all-reduce every other rank calls, so theirs time out (after {@code DDP4J_TIMEOUT_SECONDS})
 * naming it.
 */
public final class CollectiveTimeoutWorker {
  private CollectiveTimeoutWorker() {}

  public static void main(String[] args) throws Exception {
    try (ProcessGroup pg = Ddp.init()) {
      System.out.println("pid=" + ProcessHandle.current().pid());
      System.out.flush();
      if (pg.rank() == Integer.parseInt(args[0])) {
        new CountDownLatch(1).await();
      }
      pg.allReduce(HostBuffer.of(new float[16]), ReduceOp.SUM).await();
    }
  }
}
