package dev.ddp4j.launcher;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * How one attempt of the worker group ended: every worker exited 0, some failed (root causes
 * first), or it was stopped from outside (a peer node failed, the launcher was signalled).
 */
record GroupOutcome(Kind kind, List<Failure> failures, String externalReason) {

  enum Kind {
    SUCCEEDED,
    FAILED,
    STOPPED
  }

  /**
   * A worker that exited non-zero on its own (not stopped by the launcher).
   *
   * @param error what {@link WorkerBootstrap} recorded, when the program threw
   * @param stderrOnConsole whether its stderr already went to the console (then the report does not
   *     repeat it)
   */
  record Failure(
      WorkerSpec spec,
      String host,
      int exitCode,
      Instant at,
      List<String> stderrTail,
      Optional<WorkerError> error,
      boolean stderrOnConsole) {}

  static GroupOutcome succeeded() {
    return new GroupOutcome(Kind.SUCCEEDED, List.of(), null);
  }

  static GroupOutcome failed(List<Failure> failures) {
    return new GroupOutcome(Kind.FAILED, List.copyOf(failures), null);
  }

  static GroupOutcome stopped(String reason) {
    return new GroupOutcome(Kind.STOPPED, List.of(), reason);
  }
}
