package dev.ddp4j.launcher;

import picocli.CommandLine;

/** Lets tests of other packages build the launcher's command line. */
public final class LaunchCommandAccess {
  private LaunchCommandAccess() {}

  public static CommandLine commandLine() {
    return LaunchCommand.commandLine();
  }
}
