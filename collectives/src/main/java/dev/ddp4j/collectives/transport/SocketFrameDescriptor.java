package dev.ddp4j.collectives.transport;

/**
 * Frames on a ddp4j data socket. Each directed pair of ranks on different nodes has one TCP
 * connection, opened by the sender, carrying every channel. Integers are big-endian (Netty's
 * order); the payload is the elements' bytes in native order.
 *
 * <pre>
 * 0          4          8          12                    20                    28
 * +----------+----------+----------+---------------------+---------------------+-----------+
 * | length   | channel  | meta     | sequence            | count               | payload   |
 * | u32      | i32      | i32      | u64                 | u64                 | length-24 |
 * +----------+----------+----------+---------------------+---------------------+-----------+
 * length counts the bytes after itself. channel >= 0: a data piece of that channel.
 * channel HELLO (-1):  sequence = the sender's rank; sent once, first.
 * channel FAILED (-2): sequence = the collective that failed on the sender; payload = reason, UTF-8.
 * channel HEARTBEAT (-3): no payload; sent every DDP4J_SOCKET_LIVENESS_MS / 5 so that a receiver
 *                     tells a silent peer (host down, link cut) from a busy one.
 * </pre>
 */
public final class SocketFrameDescriptor {

  public static final int LENGTH_FIELD_BYTES = 4;
  public static final int HEADER_BYTES = 24; // after the length field
  public static final int HELLO = -1;
  public static final int FAILED = -2;
  public static final int HEARTBEAT = -3;

  private SocketFrameDescriptor() {}
}
