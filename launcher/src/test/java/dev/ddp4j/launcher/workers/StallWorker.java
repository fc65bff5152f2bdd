package dev.ddp4j.launcher.workers;

import dev.ddp4j.Ddp;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import java.time.Duration;

/**
 * Test worker for the stall inspector: every rank prints {@code rank R pid=N}, then runs a loop of
 * all-reduces (all-reduce #i in iteration i). Modes ({@code args[0]}):
 *
 * <ul>
 *   <li>{@code sleep RANK MILLIS AT ITERATIONS}: rank RANK sleeps MILLIS before iteration AT;
 *   <li>{@code group RANK AT ITERATIONS}: at iteration AT, rank RANK first calls an all-reduce of a
 *       second group, which the others call only after the first group's #AT, and waits 5 s for it
 *       before it rejoins the first group; the second group's all-reduce completes at the end;
 *   <li>{@code spin}: iterates every 5 ms until stopped (the test SIGSTOPs a rank).
 * </ul>
 */
public final class StallWorker {
  private StallWorker() {}

  public static void main(String[] args) throws Exception {
    try (ProcessGroup pg = Ddp.init()) {
      System.out.println("rank " + pg.rank() + " pid=" + ProcessHandle.current().pid());
      System.out.flush();
      switch (args[0]) {
        case "sleep" -> sleep(pg, args);
        case "group" -> group(pg, args);
        case "spin" -> spin(pg);
        default -> throw new IllegalArgumentException("mode " + args[0]);
      }
      System.out.println("rank " + pg.rank() + " done");
    }
  }

  private static void sleep(ProcessGroup pg, String[] args) throws InterruptedException {
    int who = Integer.parseInt(args[1]);
    long millis = Long.parseLong(args[2]);
    int at = Integer.parseInt(args[3]);
    int iterations = Integer.parseInt(args[4]);
    for (int i = 0; i < iterations; i++) {
      if (i == at && pg.rank() == who) {
        System.out.println("rank " + who + " sleeps before #" + i);
        System.out.flush();
        Thread.sleep(millis);
      }
      step(pg);
    }
    Thread.sleep(1_000); // the inspector's next look sees the stall over
  }

  private static void group(ProcessGroup pg, String[] args) {
    int who = Integer.parseInt(args[1]);
    int at = Integer.parseInt(args[2]);
    int iterations = Integer.parseInt(args[3]);
    try (ProcessGroup other = Ddp.init()) {
      Work late = null;
      for (int i = 0; i < iterations; i++) {
        if (i == at && pg.rank() == who) {
          System.out.println("rank " + who + " takes the other group before #" + i);
          System.out.flush();
          late = other.allReduce(HostBuffer.of(new float[4]), ReduceOp.SUM);
          try {
            late.await(Duration.ofSeconds(5));
          } catch (DdpTimeoutException expected) {
            System.out.println("rank " + who + " gave up waiting on the other group");
          }
        }
        step(pg);
        if (i == at && pg.rank() != who) {
          late = other.allReduce(HostBuffer.of(new float[4]), ReduceOp.SUM);
        }
      }
      late.await();
    }
  }

  private static void spin(ProcessGroup pg) throws InterruptedException {
    for (int i = 0; ; i++) {
      step(pg);
      if (i == 20) {
        System.out.println("rank " + pg.rank() + " spinning");
        System.out.flush();
      }
      Thread.sleep(5);
    }
  }

  private static void step(ProcessGroup pg) {
    pg.allReduce(HostBuffer.of(new float[16]), ReduceOp.SUM).await();
  }
}
