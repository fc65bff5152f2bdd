package dev.ddp4j.collectives.transport;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

/**
 * Sends pieces as frames on the TCP connection to one peer. Back-pressure is Netty's write buffer
 * water mark: {@link #offer} returns false while the connection is not writable.
 */
final class SocketSendPort implements SendPort {

  private final Channel channel;
  private final int channelIndex;
  private final String peerAddress;

  SocketSendPort(Channel channel, int channelIndex, String peerAddress) {
    this.channel = channel;
    this.channelIndex = channelIndex;
    this.peerAddress = peerAddress;
  }

  @Override
  public int maxPieceBytes() {
    return Integer.MAX_VALUE;
  }

  @Override
  public boolean offer(Object base, long offset, int lengthBytes, PieceTag tag) {
    if (!channel.isWritable()) {
      return false;
    }
    ByteBuf frame =
        SocketFrameWriter.header(
            channel.alloc().directBuffer(SocketFrameWriter.frameBytes(lengthBytes)),
            channelIndex,
            tag.meta,
            tag.sequence,
            tag.count,
            lengthBytes);
    if (frame.hasMemoryAddress()) {
      UNSAFE.copyMemory(
          base, offset, null, frame.memoryAddress() + frame.writerIndex(), lengthBytes);
      frame.writerIndex(frame.writerIndex() + lengthBytes);
    } else {
      for (int i = 0; i < lengthBytes; i++) {
        frame.writeByte(UNSAFE.getByte(base, offset + i));
      }
    }
    channel.writeAndFlush(frame, channel.voidPromise());
    return true;
  }

  @Override
  public String route() {
    return "NET/Socket (" + peerAddress + ")";
  }
}
