package dev.ddp4j.collectives.reduce;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HalfFloatsTest {

  @Test
  void shouldRoundTripEveryFloat16BitPattern() {
    for (int h = 0; h < 65536; h++) {
      float f = HalfFloats.float16ToFloat((short) h);
      if (Float.isNaN(f)) {
        assertThat(Float.isNaN(HalfFloats.float16ToFloat(HalfFloats.floatToFloat16(f)))).isTrue();
      } else {
        assertThat(HalfFloats.floatToFloat16(f) & 0xffff).as("bits %04x", h).isEqualTo(h);
      }
    }
  }

  @Test
  void shouldRoundFloat16ToNearestEven() {
    assertThat(HalfFloats.float16ToFloat(HalfFloats.floatToFloat16(1f + 0x1p-11f))).isEqualTo(1f);
    assertThat(HalfFloats.float16ToFloat(HalfFloats.floatToFloat16(1f + 3 * 0x1p-11f)))
        .isEqualTo(1f + 0x1p-9f);
    assertThat(HalfFloats.float16ToFloat(HalfFloats.floatToFloat16(65519f))).isEqualTo(65504f);
    assertThat(HalfFloats.float16ToFloat(HalfFloats.floatToFloat16(65520f)))
        .isEqualTo(Float.POSITIVE_INFINITY);
    assertThat(HalfFloats.float16ToFloat(HalfFloats.floatToFloat16(0x1p-25f))).isEqualTo(0f);
    assertThat(HalfFloats.float16ToFloat(HalfFloats.floatToFloat16(0x1.8p-25f)))
        .isEqualTo(0x1p-24f);
    assertThat(HalfFloats.float16ToFloat(HalfFloats.floatToFloat16(-2.5f))).isEqualTo(-2.5f);
  }

  @Test
  void shouldRoundBfloat16ToNearestEvenAndKeepNaN() {
    for (int b = 0; b < 65536; b++) {
      float f = HalfFloats.bfloat16ToFloat((short) b);
      if (!Float.isNaN(f)) {
        assertThat(HalfFloats.floatToBfloat16(f) & 0xffff).isEqualTo(b);
      }
    }
    assertThat(HalfFloats.bfloat16ToFloat(HalfFloats.floatToBfloat16(1f + 0x1p-8f))).isEqualTo(1f);
    assertThat(HalfFloats.bfloat16ToFloat(HalfFloats.floatToBfloat16(1f + 3 * 0x1p-8f)))
        .isEqualTo(1f + 0x1p-6f);
    assertThat(HalfFloats.bfloat16ToFloat(HalfFloats.floatToBfloat16(Float.NaN))).isNaN();
  }
}
