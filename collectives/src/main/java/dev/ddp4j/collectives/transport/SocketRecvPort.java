package dev.ddp4j.collectives.transport;

import static dev.ddp4j.collectives.transport.SocketFrameDescriptor.HEADER_BYTES;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/** The frames one peer sent on one channel, queued by the event loop until the executor reads. */
final class SocketRecvPort implements RecvPort {

  private final SocketLinks links;
  private final ConcurrentLinkedQueue<ByteBuf> frames = new ConcurrentLinkedQueue<>();
  private ByteBuf current; // a frame whose memory address is usable; starts at the channel field
  private boolean copied;

  // The point-to-point channel's reader is not the progress thread: it wakes its own reader.
  private final boolean collective;
  private volatile Thread reader;

  SocketRecvPort(SocketLinks links, boolean collective) {
    this.links = links;
    this.collective = collective;
  }

  void arrived(ByteBuf frame) {
    frames.add(frame);
    Thread t = reader;
    if (!collective && t != null) {
      LockSupport.unpark(t);
    }
  }

  @Override
  public boolean poll() {
    if (current != null) {
      return true;
    }
    if (!collective) {
      reader = Thread.currentThread();
    } else if (links.progressThread == null) {
      links.progressThread = Thread.currentThread();
    }
    ByteBuf frame = frames.poll();
    if (frame == null) {
      return false;
    }
    if (frame.hasMemoryAddress()) {
      current = frame;
      copied = false;
    } else { // a composite or heap frame: copy it once into direct memory
      current = PooledByteBufAllocator.DEFAULT.directBuffer(frame.readableBytes());
      current.writeBytes(frame);
      frame.release();
      copied = true;
    }
    return true;
  }

  @Override
  public long address() {
    return current.memoryAddress() + current.readerIndex() + HEADER_BYTES;
  }

  @Override
  public int lengthBytes() {
    return current.readableBytes() - HEADER_BYTES;
  }

  @Override
  public void tag(PieceTag into) {
    int r = current.readerIndex();
    into.set(current.getLong(r + 8), current.getLong(r + 16), current.getInt(r + 4));
  }

  @Override
  public void release() {
    current.release();
    current = null;
  }

  /** Frees what was never read (at close). */
  void discard() {
    if (current != null) {
      current.release();
      current = null;
    }
    for (ByteBuf b; (b = frames.poll()) != null; ) {
      b.release();
    }
  }

  boolean wasCopied() {
    return copied;
  }
}
