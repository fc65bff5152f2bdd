package dev.ddp4j.collectives.schedule;

/**
 * One step of one rank's program on one channel: {@code kind} elements {@code [offset, offset +
 * count)} of the working buffer with rank {@code peer}.
 *
 * @param kind send, receive-and-copy or receive-and-reduce
 * @param peer the rank on the other side
 * @param offset first element, in elements of the working buffer
 * @param count number of elements, {@code >= 1}
 * @param lane which of the channel's transmit engines carries a send: 0, or 1 for the hierarchical
 *     column, whose kernels run beside the island's on channels of their own (the simulator gives
 *     each lane its own engine; the cpu runner has none to share and ignores it)
 */
public record Step(StepKind kind, int peer, long offset, long count, int lane) {

  /** A step on lane 0. */
  public Step(StepKind kind, int peer, long offset, long count) {
    this(kind, peer, offset, count, 0);
  }

  public Step {
    if (kind == null) {
      throw new IllegalArgumentException("kind : null (expected: SEND, RECV_COPY or RECV_REDUCE)");
    }
    if (peer < 0) {
      throw new IllegalArgumentException("peer : " + peer + " (expected: a rank >= 0)");
    }
    if (offset < 0 || count < 1) {
      throw new IllegalArgumentException(
          "range [" + offset + ", +" + count + ") (expected: offset >= 0, count >= 1)");
    }
    if (lane < 0 || lane > 1) {
      throw new IllegalArgumentException("lane : " + lane + " (expected: 0 or 1)");
    }
  }

  public static Step send(int peer, long offset, long count) {
    return new Step(StepKind.SEND, peer, offset, count);
  }

  public static Step recvCopy(int peer, long offset, long count) {
    return new Step(StepKind.RECV_COPY, peer, offset, count);
  }

  public static Step recvReduce(int peer, long offset, long count) {
    return new Step(StepKind.RECV_REDUCE, peer, offset, count);
  }

  /** One past the last element. */
  public long end() {
    return offset + count;
  }

  /** e.g. {@code SEND->1 [0,16)} or {@code RECV_REDUCE<-3 [16,32)}. */
  @Override
  public String toString() {
    return kind + (kind == StepKind.SEND ? "->" : "<-") + peer + " [" + offset + "," + end() + ")";
  }
}
