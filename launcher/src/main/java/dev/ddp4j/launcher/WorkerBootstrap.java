package dev.ddp4j.launcher;

import dev.ddp4j.spi.Settings;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The main class of every worker JVM: starts the {@link ParentWatchdog} so the worker cannot
 * outlive its launcher (even one killed with SIGKILL), then runs the user's main class with the
 * program arguments. Usage: {@code WorkerBootstrap MAIN_CLASS [ARGS...]}.
 *
 * <p>When the program throws, the worker says so once: a configuration mistake ({@code
 * ConfigException}) as one line, anything else as its stack trace; it records the failure for the
 * launcher's report ({@link WorkerError}) and exits 2 or 1.
 */
public final class WorkerBootstrap {

  private WorkerBootstrap() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println("WorkerBootstrap: no main class given (it is started by the launcher)");
      System.exit(2);
    }
    ParentWatchdog.startFromEnvironment(Settings.process());
    Class<?> main = Class.forName(args[0], true, ClassLoader.getSystemClassLoader());
    Method m = main.getMethod("main", String[].class);
    if (!Modifier.isStatic(m.getModifiers())) {
      throw new IllegalArgumentException(args[0] + ".main(String[]) is not static");
    }
    try {
      m.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
    } catch (InvocationTargetException e) {
      System.exit(fail(e.getCause()));
    }
  }

  /** Reports {@code thrown} on stderr and in the error file; returns the exit status. */
  private static int fail(Throwable thrown) {
    WorkerError error = WorkerError.of(thrown);
    if (error.config()) {
      System.err.println(error.message());
    } else {
      thrown.printStackTrace();
    }
    System.err.flush();
    String file = Settings.process().text(WorkerError.FILE_VAR, null);
    if (file != null) {
      try {
        error.write(Path.of(file));
      } catch (IOException | RuntimeException e) {
        System.err.println("(could not record the failure in " + file + ": " + e + ")");
      }
    }
    return error.config() ? 2 : 1;
  }
}
