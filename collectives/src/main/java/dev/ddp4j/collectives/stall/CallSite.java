package dev.ddp4j.collectives.stall;

/**
 * Where a thread is, as a stall report says it: the first frame of its stack outside ddp4j's
 * collectives and API packages and the JDK (user code, or ddp-runtime such as {@code
 * GradientReducer}), and when that frame is a library's, also the first frame outside ddp4j, DL4J
 * and ND4J (the user's training loop).
 *
 * <p>Taken by the inspector's thread from the thread that issued a collective, at most twice per
 * heartbeat, never on the collective's path: a thread blocked in {@code Work.await} is at the call
 * site, and one that moved on is where it is now, which is what a report needs. (A {@link
 * StackWalker} on every call cost 0.6-1.7 us on the 2-core CI machine, CallSiteBench, more than a
 * small all-reduce can spare.)
 */
final class CallSite {

  private CallSite() {}

  /**
   * e.g. {@code GradientReducer.launch(GradientReducer.java:88) < Train.main(Train.java:120)}; "its
   * thread ended" or "no frame outside ddp4j" where there is nothing to show.
   */
  static String of(Thread thread) {
    if (!thread.isAlive()) {
      return "its thread ended";
    }
    StackTraceElement[] stack = thread.getStackTrace();
    StackTraceElement first = null;
    for (StackTraceElement f : stack) {
      String cls = f.getClassName();
      if (first == null) {
        if (!internal(cls)) {
          first = f;
          if (!library(cls)) {
            return format(f);
          }
        }
      } else if (!library(cls)) {
        return format(first) + " < " + format(f);
      }
    }
    return first == null ? "no frame outside ddp4j" : format(first);
  }

  /** ddp-api ({@code dev.ddp4j}, {@code dev.ddp4j.spi}), the collectives module, and the JDK. */
  static boolean internal(String className) {
    if (!className.startsWith("dev.ddp4j.")) {
      return className.startsWith("java.")
          || className.startsWith("jdk.")
          || className.startsWith("sun.");
    }
    String rest = className.substring("dev.ddp4j.".length());
    return rest.indexOf('.') < 0 || rest.startsWith("spi.") || rest.startsWith("collectives.");
  }

  /** ddp4j, DL4J, ND4J and the JDK: frames that say where only to those who wrote them. */
  static boolean library(String className) {
    return className.startsWith("dev.ddp4j.")
        || className.startsWith("org.deeplearning4j.")
        || className.startsWith("org.nd4j.")
        || internal(className);
  }

  static String format(StackTraceElement f) {
    String cls = f.getClassName();
    String simple = cls.substring(cls.lastIndexOf('.') + 1);
    String file = f.getFileName() == null ? "?" : f.getFileName();
    return simple + "." + f.getMethodName() + "(" + file + ":" + f.getLineNumber() + ")";
  }
}
