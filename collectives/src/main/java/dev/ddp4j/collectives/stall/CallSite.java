package dev.ddp4j.collectives.stall;

import java.util.Optional;
import java.util.stream.Stream;

/**
 * Where a collective was called from: the first stack frame outside ddp4j's collectives and API
 * packages (user code, or ddp-runtime such as {@code GradientReducer}), and when that frame is a
 * library's, also the first frame outside ddp4j, DL4J and ND4J (the user's training loop) if it is
 * within {@value #MAX_DEPTH} frames. Captured on every call with a depth-limited {@link
 * StackWalker} (CallSiteBench measures it); formatted only when a snapshot is published.
 */
public final class CallSite {

  /** Frames looked at, enough to leave DdpModel's hooks inside DL4J's backward pass. */
  private static final int MAX_DEPTH = 40;

  private static final StackWalker WALKER = StackWalker.getInstance();

  private final StackWalker.StackFrame first;
  private final StackWalker.StackFrame user; // null when first is already user code

  private CallSite(StackWalker.StackFrame first, StackWalker.StackFrame user) {
    this.first = first;
    this.user = user;
  }

  /** The call site of the collective being issued on this thread; null if none was found. */
  public static CallSite capture() {
    return WALKER.walk(CallSite::find);
  }

  private static CallSite find(Stream<StackWalker.StackFrame> frames) {
    StackWalker.StackFrame[] found = new StackWalker.StackFrame[2];
    frames
        .limit(MAX_DEPTH)
        .filter(f -> !internal(f.getClassName()))
        .filter(
            f -> {
              if (found[0] == null) {
                found[0] = f;
                return !library(f.getClassName());
              }
              if (!library(f.getClassName())) {
                found[1] = f;
                return true;
              }
              return false;
            })
        .findFirst();
    return found[0] == null ? null : new CallSite(found[0], found[1]);
  }

  /** ddp-api ({@code dev.ddp4j}, {@code dev.ddp4j.spi}) and the collectives module. */
  static boolean internal(String className) {
    if (!className.startsWith("dev.ddp4j.")) {
      return className.startsWith("java.") || className.startsWith("jdk.");
    }
    String rest = className.substring("dev.ddp4j.".length());
    return rest.indexOf('.') < 0 || rest.startsWith("spi.") || rest.startsWith("collectives.");
  }

  /** ddp4j, DL4J, ND4J and the JDK: frames that say where only to those who wrote them. */
  static boolean library(String className) {
    return className.startsWith("dev.ddp4j.")
        || className.startsWith("org.deeplearning4j.")
        || className.startsWith("org.nd4j.")
        || className.startsWith("java.")
        || className.startsWith("jdk.")
        || className.startsWith("sun.");
  }

  /** e.g. {@code GradientReducer.launch(GradientReducer.java:88) < Train.main(Train.java:120)}. */
  @Override
  public String toString() {
    return user == null ? format(first) : format(first) + " < " + format(user);
  }

  static String format(StackWalker.StackFrame f) {
    String cls = f.getClassName();
    String simple = cls.substring(cls.lastIndexOf('.') + 1);
    String file = Optional.ofNullable(f.getFileName()).orElse("?");
    return simple + "." + f.getMethodName() + "(" + file + ":" + f.getLineNumber() + ")";
  }
}
