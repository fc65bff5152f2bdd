package dev.ddp4j.collectives.gpu;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * One daemon thread that completes the futures of {@link CudaWork}s someone asked a future of: it
 * polls their events every 20 us while any is pending and parks otherwise.
 */
final class ProgressThread {

  private static final ConcurrentLinkedQueue<CudaWork> PENDING = new ConcurrentLinkedQueue<>();
  private static volatile Thread thread;

  private ProgressThread() {}

  static void watch(CudaWork work) {
    PENDING.add(work);
    Thread t = thread;
    if (t == null) {
      synchronized (ProgressThread.class) {
        if (thread == null) {
          thread = new Thread(ProgressThread::loop, "ddp4j-cuda-progress");
          thread.setDaemon(true);
          thread.start();
        }
        t = thread;
      }
    }
    LockSupport.unpark(t);
  }

  private static void loop() {
    while (true) {
      if (PENDING.isEmpty()) {
        LockSupport.park();
        continue;
      }
      PENDING.removeIf(CudaWork::poll);
      LockSupport.parkNanos(20_000);
    }
  }
}
