package dev.ddp4j.collectives.store;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;
import java.util.List;

/**
 * Splits the byte stream into {@link StoreProtocolDescriptor} frames (the length field stripped),
 * with a limit that grows once the client has authenticated: before that a frame may be no larger
 * than the handshake's, so an unauthenticated connection can make the server buffer at most that
 * many bytes.
 */
final class StoreFrameDecoder extends ByteToMessageDecoder {

  /** Largest frame before authentication: the OP_AUTH request, with room to spare. */
  static final int HANDSHAKE_MAX_FRAME_BYTES = 256;

  private final int maxFrameBytes;
  private boolean authenticated;
  private boolean refused; // a frame was too long: the rest of the stream is discarded

  StoreFrameDecoder(int maxFrameBytes) {
    this.maxFrameBytes = maxFrameBytes;
  }

  /** Lifts the limit to the server's frame limit; called from the handler on the event loop. */
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
    int limit = authenticated ? maxFrameBytes : HANDSHAKE_MAX_FRAME_BYTES;
    if (length + lengthBytes > limit) {
      in.skipBytes(in.readableBytes());
      refused = true;
      throw new TooLongFrameException(
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
}
