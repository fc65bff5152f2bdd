package dev.ddp4j.collectives.schedule;

/**
 * When a step may run before earlier unfinished steps of its channel: the rule the cpu runner
 * executes and the simulator replays, so that both run a schedule alike. Inside a window of {@link
 * #WINDOW} steps from the first unfinished one, a step waits for an earlier one only on the same
 * queue (peer and direction: messages between a pair stay in order) or where their ranges overlap
 * and one of them writes; over exactly the same range it may follow piece by piece (piece q of a
 * receive may be sent on once it has landed).
 */
public final class StepOrder {

  /** Steps a runner looks ahead of the first unfinished one. */
  public static final int WINDOW = 16;

  /** What a step waits for behind one earlier unfinished step. */
  public enum Wait {
    /** Nothing: independent. */
    NONE,
    /** The earlier step's progress, piece by piece (same range, one of them writes). */
    PIECE_BY_PIECE,
    /** The whole earlier step. */
    WHOLE
  }

  private StepOrder() {}

  /**
   * What a step ({@code sends}, {@code peer}, range {@code [from, from + length)}) waits for behind
   * an earlier unfinished one; ranges in any one unit (elements or bytes).
   */
  public static Wait behind(
      boolean earlierSends,
      int earlierPeer,
      long earlierFrom,
      long earlierLength,
      boolean sends,
      int peer,
      long from,
      long length) {
    if (earlierPeer == peer && earlierSends == sends) {
      return Wait.WHOLE;
    }
    boolean overlap = earlierFrom < from + length && from < earlierFrom + earlierLength;
    if (!overlap || (sends && earlierSends)) {
      return Wait.NONE;
    }
    return earlierFrom == from && earlierLength == length ? Wait.PIECE_BY_PIECE : Wait.WHOLE;
  }

  /** {@link #behind} for two steps. */
  public static Wait behind(Step earlier, Step step) {
    return behind(
        earlier.kind() == StepKind.SEND,
        earlier.peer(),
        earlier.offset(),
        earlier.count(),
        step.kind() == StepKind.SEND,
        step.peer(),
        step.offset(),
        step.count());
  }
}
