package dev.ddp4j.launcher;

import dev.ddp4j.spi.Settings;
import java.util.Optional;

/**
 * Ends this worker JVM when its launcher is gone: a daemon thread checks every {@value #PERIOD_MS}
 * ms that the parent process is still the launcher whose pid is in {@value #LAUNCHER_PID_VAR} (a
 * dead parent's children are re-parented, so the parent pid changes). It then exits with status
 * {@value #EXIT_STATUS}, and halts if shutdown hooks have not finished within {@value
 * #HALT_AFTER_MS} ms.
 */
final class ParentWatchdog {

  static final String LAUNCHER_PID_VAR = "DDP4J_LAUNCHER_PID";
  static final long PERIOD_MS = 250;
  static final long HALT_AFTER_MS = 3000;
  static final int EXIT_STATUS = 143;

  private ParentWatchdog() {}

  static void startFromEnvironment(Settings env) {
    if (!env.isSet(LAUNCHER_PID_VAR)) {
      return;
    }
    long launcherPid = env.wholeLong(LAUNCHER_PID_VAR, 0, 1, Long.MAX_VALUE);
    Thread t = new Thread(() -> watch(launcherPid), "ddp4j-launcher-watchdog");
    t.setDaemon(true);
    t.start();
  }

  private static void watch(long launcherPid) {
    while (true) {
      Optional<ProcessHandle> parent = ProcessHandle.current().parent();
      if (parent.isEmpty() || parent.get().pid() != launcherPid || !parent.get().isAlive()) {
        System.err.println(
            "ddp4j: the launcher (pid " + launcherPid + ") is gone; this worker exits");
        Thread halter =
            new Thread(
                () -> {
                  try {
                    Thread.sleep(HALT_AFTER_MS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  Runtime.getRuntime().halt(EXIT_STATUS);
                },
                "ddp4j-watchdog-halt");
        halter.setDaemon(true);
        halter.start();
        System.exit(EXIT_STATUS);
      }
      try {
        Thread.sleep(PERIOD_MS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }
}
