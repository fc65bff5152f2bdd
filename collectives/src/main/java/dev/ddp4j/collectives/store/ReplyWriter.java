package dev.ddp4j.collectives.store;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import java.util.function.Consumer;

/** Builds one frame of {@link StoreProtocolDescriptor}: header first, length patched at the end. */
final class ReplyWriter {

  private ReplyWriter() {}

  static ByteBuf begin(ChannelHandlerContext ctx, byte code, int id) {
    ByteBuf out = ctx.alloc().buffer();
    return header(out, code, id);
  }

  static ByteBuf header(ByteBuf out, byte code, int id) {
    out.writeInt(0);
    out.writeByte(code);
    out.writeInt(id);
    return out;
  }

  static ByteBuf finish(ByteBuf out) {
    out.setInt(0, out.writerIndex() - StoreProtocolDescriptor.LENGTH_FIELD_BYTES);
    return out;
  }

  static void send(ChannelHandlerContext ctx, ByteBuf out) {
    ctx.writeAndFlush(finish(out), ctx.voidPromise());
  }

  /** Sends one reply: its header, then what {@code body} writes. */
  static void send(ChannelHandlerContext ctx, byte code, int id, Consumer<ByteBuf> body) {
    ByteBuf out = begin(ctx, code, id);
    body.accept(out);
    send(ctx, out);
  }
}
