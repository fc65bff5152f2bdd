package dev.ddp4j.launcher;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;

/**
 * The main class of every worker JVM: starts the {@link ParentWatchdog} so the worker cannot
 * outlive its launcher (even one killed with SIGKILL), then runs the user's main class with the
 * program arguments. Usage: {@code WorkerBootstrap MAIN_CLASS [ARGS...]}.
 */
public final class WorkerBootstrap {

  private WorkerBootstrap() {}

  public static void main(String[] args) throws Throwable {
    if (args.length == 0) {
      System.err.println("WorkerBootstrap: no main class given (it is started by the launcher)");
      System.exit(2);
    }
    ParentWatchdog.startFromEnvironment(System.getenv());
    Class<?> main = Class.forName(args[0], true, ClassLoader.getSystemClassLoader());
    Method m = main.getMethod("main", String[].class);
    if (!Modifier.isStatic(m.getModifiers())) {
      throw new IllegalArgumentException(args[0] + ".main(String[]) is not static");
    }
    try {
      m.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
    } catch (InvocationTargetException e) {
      // Let the program's own exception reach the default handler (stack trace, exit 1).
      throw e.getCause();
    }
  }
}
