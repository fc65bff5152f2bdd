package dev.ddp4j.launcher.workers;

import java.util.concurrent.CountDownLatch;

/** Test worker: prints its pid and blocks until it is stopped. */
public final class HangWorker {
  private HangWorker() {}

  public static void main(String[] args) throws InterruptedException {
    System.out.println("pid=" + ProcessHandle.current().pid());
    System.out.flush();
    new CountDownLatch(1).await();
  }
}
