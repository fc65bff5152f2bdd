package dev.ddp4j;

import java.util.List;

/**
 * A wait ran past its timeout. The message says what was awaited and who is missing; {@link
 * #missingRanks()} lists the ranks that never arrived when the waiter knows them (empty otherwise).
 */
public class DdpTimeoutException extends DdpException {
  private static final long serialVersionUID = 1L;

  private final List<Integer> missingRanks;

  public DdpTimeoutException(String message) {
    this(message, List.of());
  }

  public DdpTimeoutException(String message, List<Integer> missingRanks) {
    super(message);
    this.missingRanks = List.copyOf(missingRanks);
  }

  /** Ranks that had not arrived when the timeout fired; empty when unknown. */
  public List<Integer> missingRanks() {
    return missingRanks;
  }
}
