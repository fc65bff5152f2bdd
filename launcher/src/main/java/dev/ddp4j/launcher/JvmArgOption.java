package dev.ddp4j.launcher;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** {@code --jvm-arg}, one flag for every command that starts worker or rank JVMs (a mixin). */
public final class JvmArgOption {

  @Option(
      names = "--jvm-arg",
      paramLabel = "ARG",
      description = "An option for every worker JVM, e.g. --jvm-arg=-Xmx8g (repeatable).")
  private List<String> values = new ArrayList<>();

  /** The options given, in order. */
  public List<String> values() {
    return List.copyOf(values);
  }
}
