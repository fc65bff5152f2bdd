package dev.ddp4j.launcher;

import dev.ddp4j.collectives.store.StoreServer;
import java.util.Set;

/** {@code java -jar launcher.jar ...}: runs the launcher CLI and exits with its status. */
public final class LauncherMain {

  /** Arguments that need the topo, bench and doctor subcommands in the command model. */
  private static final Set<String> SUBCOMMAND_ARGS =
      Set.of("topo", "bench", "doctor", "--help", "-h", "--version", "-V");

  private static final String NETTY_JFR = "io.netty.jfr.enabled";

  private LauncherMain() {}

  public static void main(String[] args) {
    // Netty's JFR buffer events make it load and instrument ~100 JFR classes in the launcher, which
    // slows the workers' start on a busy machine; the launcher's store does not need them.
    if (System.getProperty(NETTY_JFR) == null) {
      System.setProperty(NETTY_JFR, "false");
    }
    if (!needsSubcommands(args)) {
      // A job: Netty's classes load on a second core while picocli parses the flags (the store
      // starts right after, before the first worker; bench/launcher-overhead.sh measures it).
      Thread preload = new Thread(StoreServer::preload, "ddp4j-store-preload");
      preload.setDaemon(true);
      preload.start();
    }
    System.exit(run(args));
  }

  /** Runs the CLI without exiting: the exit status (0 ok, 1 job failed, 2 bad usage). */
  public static int run(String... args) {
    return LaunchCommand.commandLine(needsSubcommands(args)).execute(args);
  }

  /**
   * Whether the command model needs the subcommands: building them costs picocli tens of
   * milliseconds on the launcher's path to its first worker, so a job's command line goes without.
   */
  static boolean needsSubcommands(String[] args) {
    if (args.length == 0) {
      return true;
    }
    for (String a : args) {
      if (SUBCOMMAND_ARGS.contains(a)) {
        return true;
      }
    }
    return false;
  }
}
