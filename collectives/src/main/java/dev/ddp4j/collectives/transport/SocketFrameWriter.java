package dev.ddp4j.collectives.transport;

import static dev.ddp4j.collectives.transport.SocketFrameDescriptor.CHALLENGE;
import static dev.ddp4j.collectives.transport.SocketFrameDescriptor.FAILED;
import static dev.ddp4j.collectives.transport.SocketFrameDescriptor.HEADER_BYTES;
import static dev.ddp4j.collectives.transport.SocketFrameDescriptor.HEARTBEAT;
import static dev.ddp4j.collectives.transport.SocketFrameDescriptor.HELLO;
import static dev.ddp4j.collectives.transport.SocketFrameDescriptor.LENGTH_FIELD_BYTES;
import static dev.ddp4j.collectives.transport.SocketFrameDescriptor.OPEN;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Writes the frames of {@link SocketFrameDescriptor}: the length field and the header into a buffer
 * sized for the whole frame, then the payload. The one place that knows the header's field order;
 * data pieces append their payload after {@link #header}.
 */
final class SocketFrameWriter {

  private SocketFrameWriter() {}

  /** Bytes on the wire of a frame with {@code payloadBytes} of payload (before any tag). */
  static int frameBytes(int payloadBytes) {
    return LENGTH_FIELD_BYTES + HEADER_BYTES + payloadBytes;
  }

  /**
   * Writes the length field and the header of a frame with {@code payloadBytes} to follow into
   * {@code frame} (at least {@link #frameBytes} writable); returns it for the payload.
   */
  static ByteBuf header(
      ByteBuf frame, int channel, int meta, long sequence, long count, int payloadBytes) {
    frame.writeInt(HEADER_BYTES + payloadBytes).writeInt(channel).writeInt(meta);
    return frame.writeLong(sequence).writeLong(count);
  }

  private static ByteBuf frame(
      ByteBufAllocator alloc, int channel, int meta, long sequence, long count, int payloadBytes) {
    return header(
        alloc.buffer(frameBytes(payloadBytes)), channel, meta, sequence, count, payloadBytes);
  }

  /** The dialer's OPEN: its rank, the rank it asks for, whether it seals, its nonce. */
  static ByteBuf open(ByteBufAllocator alloc, boolean sealFrames, int from, int to, byte[] nonce) {
    return frame(alloc, OPEN, sealFrames ? 1 : 0, from, to, nonce.length).writeBytes(nonce);
  }

  /** The receiver's CHALLENGE: its nonce and its proof. */
  static ByteBuf challenge(ByteBufAllocator alloc, byte[] nonce, byte[] proof) {
    return frame(alloc, CHALLENGE, 0, 0, 0, nonce.length + proof.length)
        .writeBytes(nonce)
        .writeBytes(proof);
  }

  /** The dialer's HELLO: its rank, the receiver's, its proof. */
  static ByteBuf hello(ByteBufAllocator alloc, int from, int to, byte[] proof) {
    return frame(alloc, HELLO, 0, from, to, proof.length).writeBytes(proof);
  }

  /** An empty HEARTBEAT. */
  static ByteBuf heartbeat(ByteBufAllocator alloc) {
    return frame(alloc, HEARTBEAT, 0, 0, 0, 0);
  }

  /** FAILED: the collective {@code sequence} failed on this rank, for {@code reason} (UTF-8). */
  static ByteBuf failed(ByteBufAllocator alloc, long sequence, byte[] reason) {
    return frame(alloc, FAILED, 0, sequence, 0, reason.length).writeBytes(reason);
  }
}
