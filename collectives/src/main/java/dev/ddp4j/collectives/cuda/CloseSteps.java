package dev.ddp4j.collectives.cuda;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Closes the parts of a route, column or staged path in order, each even where one before it
 * failed, and returns what failed, for the group's close to report together.
 */
final class CloseSteps {

  private CloseSteps() {}

  /** Closes each of {@code parts} (null ones skipped); the errors met, in order. */
  static List<RuntimeException> each(AutoCloseable... parts) {
    return each(Arrays.asList(parts));
  }

  /** Closes each of {@code parts} (null ones skipped); the errors met, in order. */
  static List<RuntimeException> each(Iterable<? extends AutoCloseable> parts) {
    List<RuntimeException> errors = new ArrayList<>();
    for (AutoCloseable part : parts) {
      if (part == null) {
        continue;
      }
      try {
        part.close();
      } catch (RuntimeException e) {
        errors.add(e);
      } catch (Exception e) {
        errors.add(new RuntimeException(e));
      }
    }
    return errors;
  }
}
