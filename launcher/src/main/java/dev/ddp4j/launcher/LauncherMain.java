package dev.ddp4j.launcher;

/** {@code java -jar launcher.jar ...}: runs the launcher CLI and exits with its status. */
public final class LauncherMain {

  private LauncherMain() {}

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the CLI without exiting: the exit status (0 ok, 1 job failed, 2 bad usage). */
  public static int run(String... args) {
    return LaunchCommand.commandLine().execute(args);
  }
}
