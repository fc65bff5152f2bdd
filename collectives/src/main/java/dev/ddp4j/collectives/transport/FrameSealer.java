package dev.ddp4j.collectives.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;

/**
 * Outbound, on a connection this rank dialed: once {@link #arm armed} after the handshake, grows
 * each frame's length field by {@link FrameMac#TAG_BYTES} and writes the frame's tag after it. Runs
 * on the event loop, so frames are numbered in the order they reach the wire whichever thread wrote
 * them (data pieces, heartbeats, failure notices).
 */
final class FrameSealer extends ChannelOutboundHandlerAdapter {

  private volatile FrameMac mac; // null until the handshake is done: handshake frames go bare
  private final byte[] tag = new byte[FrameMac.TAG_BYTES];

  void arm(FrameMac mac) {
    this.mac = mac;
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    FrameMac m = mac;
    if (m == null || !(msg instanceof ByteBuf frame) || !frame.isReadable()) {
      ctx.write(msg, promise); // handshake frames, and the empty flush marker of close()
      return;
    }
    int start = frame.readerIndex();
    frame.setInt(start, frame.getInt(start) + FrameMac.TAG_BYTES);
    m.tag(frame, start, frame.readableBytes(), tag);
    ByteBuf t = ctx.alloc().buffer(FrameMac.TAG_BYTES).writeBytes(tag);
    ctx.write(frame, ctx.voidPromise());
    ctx.write(t, promise);
  }
}
