package dev.ddp4j.collectives.schedule;

/**
 * What one step does with a range of the working buffer. A step's peer is the rank on the other
 * side.
 *
 * <ul>
 *   <li>{@link #SEND}: post the range's current contents to the peer (the data is taken when
 *       posted: later writes to the range do not change what the peer receives). Blocks only while
 *       the channel to the peer already holds as many unreceived messages as the transport has
 *       slots.
 *   <li>{@link #RECV_COPY}: wait for the peer's next message on this channel and copy it into the
 *       range.
 *   <li>{@link #RECV_REDUCE}: wait for the peer's next message and reduce it into the range with
 *       the op.
 * </ul>
 *
 * Messages between two ranks on one channel arrive in the order they were sent, and a receive's
 * range must be exactly as long as the message.
 */
public enum StepKind {
  SEND,
  RECV_COPY,
  RECV_REDUCE;

  public boolean isReceive() {
    return this != SEND;
  }
}
