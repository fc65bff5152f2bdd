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
 * channel FAILED (-2): sequence = the collective that failed on the sender; payload = reason, UTF-8.
 * channel HEARTBEAT (-3): no payload; sent every DDP4J_SOCKET_LIVENESS_MS / 5 so that a receiver
 *                     tells a silent peer (host down, link cut) from a busy one.
 *
 * Handshake (LinkAuth; the dialing rank is the sender, the accepting one the receiver):
 *  sender   -> OPEN (-4):      sequence = sender's rank, count = receiver's rank, payload = Ns (32)
 *  receiver -> CHALLENGE (-5): payload = Nr (32) || receiver's proof (32), checked by the sender
 *  sender   -> HELLO (-1):     sequence = sender's rank, count = receiver's rank,
 *                              payload = sender's proof (32), checked by the receiver
 * A receiver drops (and logs) a connection whose HELLO does not prove the job secret, or that
 * sends anything else first; nothing from it is read. These three frames go bare; every frame
 * the sender writes after HELLO is sealed: length counts a 16-byte tag appended after the payload,
 * the AES-256-GCM tag under the connection key with nonce = 0 u32 || frame number u64, over the
 * frame from its length field to the payload's end (FrameMac; the frame itself stays in clear). A
 * frame whose tag does not match drops the connection.
 * </pre>
 */
public final class SocketFrameDescriptor {

  public static final int LENGTH_FIELD_BYTES = 4;
  public static final int HEADER_BYTES = 24; // after the length field
  public static final int HELLO = -1;
  public static final int FAILED = -2;
  public static final int HEARTBEAT = -3;
  public static final int OPEN = -4;
  public static final int CHALLENGE = -5;

  private SocketFrameDescriptor() {}
}
