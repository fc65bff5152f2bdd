package dev.ddp4j.launcher.workers;

import java.util.concurrent.CountDownLatch;

/**
 * Test worker: prints its pid; rank {@code args[0]} then exits with code {@code args[1]} (or kills
 * itself with SIGKILL when it is {@code kill9}), every other rank blocks until it is stopped.
 */
public final class ExitWorker {
  private ExitWorker() {}

  public static void main(String[] args) throws Exception {
    int rank = Integer.parseInt(System.getenv("RANK"));
    System.out.println("pid=" + ProcessHandle.current().pid());
    System.out.flush();
    if (rank == Integer.parseInt(args[0])) {
      // Let the others start, so the launcher has a group to tear down.
      Thread.sleep(500);
      System.err.println("rank " + rank + " failing on purpose");
      System.err.flush();
      if (args[1].equals("kill9")) {
        new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).start();
        new CountDownLatch(1).await();
      }
      System.exit(Integer.parseInt(args[1]));
    }
    new CountDownLatch(1).await();
  }
}
