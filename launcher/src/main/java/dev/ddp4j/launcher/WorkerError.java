package dev.ddp4j.launcher;

import dev.ddp4j.ConfigException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.PeerFailureException;
import dev.ddp4j.collectives.stall.StallInspector;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * Why a worker's program failed, as {@link WorkerBootstrap} records it for the launcher's failure
 * report in the file {@code DDP4J_ERROR_FILE} names (as torchrun's {@code TORCHELASTIC_ERROR_FILE}
 * does): the exception, its message, and for a collective that timed out the ranks that never
 * arrived, which the launcher then names as the root cause instead of the rank that waited.
 *
 * @param exception the class name of the first ddp4j exception in the cause chain, else the thrown
 *     one's
 * @param message its message (may hold several lines)
 * @param config whether it is a configuration mistake ({@link ConfigException}): one line, no stack
 *     trace
 * @param missingRanks ranks a timed-out wait never heard from; empty when it was no such timeout
 * @param stalledRanks for a timeout, the ranks the stall inspector's last report named as holding
 *     up the collective (they may have called it, then stopped); empty if it reported none
 * @param stallReport that report's line, or empty
 */
record WorkerError(
    String exception,
    String message,
    boolean config,
    List<Integer> missingRanks,
    List<Integer> stalledRanks,
    String stallReport) {

  static final String FILE_VAR = "DDP4J_ERROR_FILE";

  /** What {@code thrown} says: the innermost ddp4j exception it wraps decides. */
  static WorkerError of(Throwable thrown) {
    Throwable t = thrown;
    for (Throwable c = thrown; c != null; c = c.getCause()) {
      if (c instanceof dev.ddp4j.DdpException) {
        t = c;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    List<Integer> missing =
        t instanceof DdpTimeoutException timeout ? timeout.missingRanks() : List.of();
    String message = t.getMessage() == null ? "" : t.getMessage();
    // A rank that timed out, or heard that a peer did, after a stall report: the report says why.
    StallInspector.Diagnosis stall =
        t instanceof DdpTimeoutException || t instanceof PeerFailureException
            ? StallInspector.latest()
            : null;
    return new WorkerError(
        t.getClass().getName(),
        message,
        t instanceof ConfigException,
        missing,
        stall == null ? List.of() : stall.culprits(),
        stall == null ? "" : stall.line());
  }

  /** The exception's simple name and its message's first line. */
  String oneLine() {
    String name = exception.substring(exception.lastIndexOf('.') + 1);
    String first = message.lines().findFirst().orElse("");
    return first.isEmpty() ? name : name + ": " + first;
  }

  void write(Path file) throws IOException {
    Properties p = new Properties();
    p.setProperty("exception", exception);
    p.setProperty("message", message);
    p.setProperty("config", Boolean.toString(config));
    p.setProperty("missingRanks", join(missingRanks));
    p.setProperty("stalledRanks", join(stalledRanks));
    p.setProperty("stallReport", stallReport);
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
      p.store(w, "written by dev.ddp4j.launcher.WorkerBootstrap");
    }
    // Whole or not at all: the launcher may read it the moment the worker exits.
    Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  private static String join(List<Integer> ranks) {
    return String.join(",", ranks.stream().map(String::valueOf).toList());
  }

  /** The record in {@code file}, or empty when the worker wrote none (or it cannot be read). */
  static Optional<WorkerError> read(Path file) {
    if (file == null || !Files.isRegularFile(file)) {
      return Optional.empty();
    }
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    } catch (IOException | IllegalArgumentException e) {
      return Optional.empty();
    }
    List<Integer> missing = ranks(p.getProperty("missingRanks", ""));
    List<Integer> stalled = ranks(p.getProperty("stalledRanks", ""));
    if (missing == null || stalled == null) {
      return Optional.empty();
    }
    return Optional.of(
        new WorkerError(
            p.getProperty("exception", "?"),
            p.getProperty("message", ""),
            Boolean.parseBoolean(p.getProperty("config", "false")),
            missing,
            stalled,
            p.getProperty("stallReport", "")));
  }

  /** {@code "1,3"} as ranks; null if it is not such a list. */
  private static List<Integer> ranks(String list) {
    List<Integer> out = new ArrayList<>();
    for (String s : list.split(",")) {
      if (!s.isBlank()) {
        try {
          out.add(Integer.parseInt(s.trim()));
        } catch (NumberFormatException e) {
          return null;
        }
      }
    }
    return List.copyOf(out);
  }
}
