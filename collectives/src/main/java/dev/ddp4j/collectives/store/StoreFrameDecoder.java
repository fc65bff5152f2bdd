package dev.ddp4j.collectives.store;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;
import java.util.List;

/**
 * Splits the byte stream into {@link StoreProtocolDescriptor} frames (the length field stripped),
 * with a limit that grows once the peer has proven the job secret: before that a frame may be no
 * larger than the handshake's, so a peer that does not know the secret can make this side buffer at
 * most that many bytes. The server uses it for requests (until the client's proof), the client for
 * replies (until the server's proof: a process posing as the store could otherwise announce a 2 GiB
 * challenge and have the client buffer it).
 */
final class StoreFrameDecoder extends ByteToMessageDecoder {

  /** Largest request before authentication: the OP_AUTH request, with room to spare. */
  static final int HANDSHAKE_MAX_FRAME_BYTES = 256;

  /**
   * Largest reply before the server's proof: the challenge and the proof are 45 bytes, a refusal
   * carries a message of a few hundred.
   */
  static final int HANDSHAKE_MAX_REPLY_BYTES = 4096;

  private final int handshakeMaxFrameBytes;
  private final int maxFrameBytes;
  // Set by the server's handler on the event loop, by the client's connecting thread once the
  // server's proof checked out (before it sends any request, so before any larger reply).
  private volatile boolean authenticated;
  private boolean refused; // a frame was too long: the rest of the stream is discarded

  /** The server's decoder: {@link #HANDSHAKE_MAX_FRAME_BYTES} until the client's proof. */
  StoreFrameDecoder(int maxFrameBytes) {
    this(HANDSHAKE_MAX_FRAME_BYTES, maxFrameBytes);
  }

  StoreFrameDecoder(int handshakeMaxFrameBytes, int maxFrameBytes) {
    this.handshakeMaxFrameBytes = handshakeMaxFrameBytes;
    this.maxFrameBytes = maxFrameBytes;
  }

  /** Lifts the limit to {@code maxFrameBytes}: the peer has proven the secret. */
  void authenticated() {
    authenticated = true;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    int lengthBytes = StoreProtocolDescriptor.LENGTH_FIELD_BYTES;
    if (refused) {
      in.skipBytes(in.readableBytes());
      return;
    }
    if (in.readableBytes() < lengthBytes) {
      return;
    }
    long length = in.getUnsignedInt(in.readerIndex());
    int limit = authenticated ? maxFrameBytes : handshakeMaxFrameBytes;
    if (length + lengthBytes > limit) {
      in.skipBytes(in.readableBytes());
      refused = true;
      throw new FrameTooLongException(
          length,
          limit,
          authenticated,
          "frame of "
              + length
              + " bytes exceeds "
              + limit
              + (authenticated ? "" : " before authentication"));
    }
    if (in.readableBytes() < lengthBytes + length) {
      return;
    }
    in.skipBytes(lengthBytes);
    out.add(in.readRetainedSlice((int) length));
  }

  /** A frame announced more bytes than the limit; nothing of it was buffered. */
  static final class FrameTooLongException extends TooLongFrameException {
    private static final long serialVersionUID = 1L;

    final long lengthBytes;
    final int limitBytes;

    FrameTooLongException(long lengthBytes, int limitBytes, boolean authenticated, String message) {
      super(message);
      this.lengthBytes = lengthBytes;
      this.limitBytes = limitBytes;
    }
  }
}
