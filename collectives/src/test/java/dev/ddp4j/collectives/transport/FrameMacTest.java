package dev.ddp4j.collectives.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The frame tag as a sender and a receiver compute it: equal for the same frames in the same order,
 * whether the bytes sit in a heap or a direct buffer, and different for an altered byte, a replayed
 * or reordered frame, or another connection's key.
 */
class FrameMacTest {

  private static final byte[] KEY = new byte[32];
  private static final byte[] OTHER_KEY = new byte[32];

  static {
    new Random(1).nextBytes(KEY);
    new Random(2).nextBytes(OTHER_KEY);
  }

  @Test
  void aReceiverShouldComputeTheSendersTagsFromHeapOrDirectFrames() {
    FrameMac sender = new FrameMac(KEY);
    FrameMac receiver = new FrameMac(KEY);
    for (int size : new int[] {28, 1000, 65_564, 300}) {
      byte[] bytes = frameBytes(size);
      assertThat(tag(receiver, direct(bytes)))
          .isEqualTo(tag(sender, Unpooled.wrappedBuffer(bytes)));
    }
  }

  @Test
  void anAlteredByteAReplayedFrameOrAnotherKeyShouldChangeTheTag() {
    byte[] first = frameBytes(4096);
    byte[] second = frameBytes(4096);
    second[0] ^= 1;
    FrameMac sender = new FrameMac(KEY);
    byte[] t0 = tag(sender, Unpooled.wrappedBuffer(first));
    byte[] t1 = tag(sender, Unpooled.wrappedBuffer(second));

    FrameMac altered = new FrameMac(KEY);
    byte[] flipped = first.clone();
    flipped[2000] ^= 0x10;
    assertThat(tag(altered, Unpooled.wrappedBuffer(flipped))).isNotEqualTo(t0);

    FrameMac replayed = new FrameMac(KEY); // frame 0 arrives again as frame 1
    assertThat(tag(replayed, Unpooled.wrappedBuffer(first))).isEqualTo(t0);
    assertThat(tag(replayed, Unpooled.wrappedBuffer(first))).isNotEqualTo(t0);

    FrameMac reordered = new FrameMac(KEY); // frame 1 arrives first
    assertThat(tag(reordered, Unpooled.wrappedBuffer(second))).isNotEqualTo(t1);

    assertThat(tag(new FrameMac(OTHER_KEY), Unpooled.wrappedBuffer(first))).isNotEqualTo(t0);
  }

  @Test
  void sameShouldCompareATagWithTheBytesAfterAFrame() {
    byte[] tag = new byte[FrameMac.TAG_BYTES];
    Arrays.fill(tag, (byte) 5);
    ByteBuf frame = Unpooled.buffer().writeBytes(new byte[10]).writeBytes(tag);
    assertThat(FrameMac.same(tag, frame, 10)).isTrue();
    frame.setByte(10 + 15, 6);
    assertThat(FrameMac.same(tag, frame, 10)).isFalse();
  }

  private static byte[] tag(FrameMac mac, ByteBuf frame) {
    byte[] tag = new byte[FrameMac.TAG_BYTES];
    mac.tag(frame, frame.readerIndex(), frame.readableBytes(), tag);
    return tag;
  }

  private static ByteBuf direct(byte[] bytes) {
    return Unpooled.directBuffer(bytes.length).writeBytes(bytes);
  }

  private static byte[] frameBytes(int size) {
    byte[] b = new byte[size];
    new Random(size).nextBytes(b);
    return b;
  }
}
