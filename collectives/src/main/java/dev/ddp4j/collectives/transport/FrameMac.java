package dev.ddp4j.collectives.transport;

import io.netty.buffer.ByteBuf;
import javax.crypto.Mac;
import javax.crypto.ShortBufferException;

/**
 * The integrity tag of the frames of one direction of one data connection: HMAC-SHA256 with the
 * connection's key over (frame number, the frame as sent, length field included), cut to {@value
 * #TAG_BYTES} bytes. The frame number counts from 0 after the handshake on both ends, so a frame
 * replayed, dropped or reordered fails as surely as one altered. One instance per direction, used
 * by one thread (the connection's event loop).
 */
final class FrameMac {

  static final int TAG_BYTES = 16;

  private final Mac mac;
  private final byte[] number = new byte[8];
  private final byte[] full = new byte[32];
  private long frames;

  FrameMac(byte[] key) {
    this.mac = LinkAuth.hmac(key);
  }

  /** Writes the tag of the next frame, {@code frame[index, index + length)}, into {@code tag}. */
  void tag(ByteBuf frame, int index, int length, byte[] tag) {
    long n = frames++;
    for (int i = 0; i < 8; i++) {
      number[i] = (byte) (n >>> (56 - 8 * i));
    }
    mac.update(number);
    if (frame.nioBufferCount() == 1) {
      mac.update(frame.nioBuffer(index, length));
    } else {
      for (java.nio.ByteBuffer b : frame.nioBuffers(index, length)) {
        mac.update(b);
      }
    }
    try {
      mac.doFinal(full, 0);
    } catch (ShortBufferException e) {
      throw new IllegalStateException(e);
    }
    System.arraycopy(full, 0, tag, 0, TAG_BYTES);
  }

  /** Constant-time comparison of a computed tag with the one at {@code frame[index]}. */
  static boolean same(byte[] tag, ByteBuf frame, int index) {
    int diff = 0;
    for (int i = 0; i < TAG_BYTES; i++) {
      diff |= tag[i] ^ frame.getByte(index + i);
    }
    return diff == 0;
  }
}
