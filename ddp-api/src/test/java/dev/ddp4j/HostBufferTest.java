package dev.ddp4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class HostBufferTest {

  @Test
  void shouldDescribeAnArrayRangeAndSliceIt() {
    float[] a = new float[10];
    HostBuffer b = HostBuffer.of(a, 2, 6);
    assertThat(b.storage()).isEqualTo(HostBuffer.Storage.ARRAY);
    assertThat(b.count()).isEqualTo(6);
    assertThat(b.sizeBytes()).isEqualTo(24);
    HostBuffer s = b.slice(1, 3);
    assertThat(s.array()).isSameAs(a);
    assertThat(s.arrayOffset()).isEqualTo(3);
    assertThat(s.count()).isEqualTo(3);
    assertThat(s.dataType()).isEqualTo(DataType.FLOAT32);
  }

  @Test
  void shouldTakeTheTypeFromTheArray() {
    assertThat(HostBuffer.of(new double[1]).dataType()).isEqualTo(DataType.FLOAT64);
    assertThat(HostBuffer.of(new int[1]).dataType()).isEqualTo(DataType.INT32);
    assertThat(HostBuffer.of(new long[1]).dataType()).isEqualTo(DataType.INT64);
    assertThat(HostBuffer.of(new short[1], DataType.BFLOAT16).dataType())
        .isEqualTo(DataType.BFLOAT16);
    assertThat(HostBuffer.of(new byte[1], DataType.UINT8).dataType()).isEqualTo(DataType.UINT8);
    assertThatThrownBy(() -> HostBuffer.of(new short[1], DataType.INT32))
        .hasMessage("a short[] holds FLOAT16 or BFLOAT16, not INT32");
  }

  @Test
  void shouldViewTheRemainingBytesOfAByteBufferInNativeOrder() {
    ByteBuffer raw = ByteBuffer.allocateDirect(64).order(ByteOrder.BIG_ENDIAN);
    raw.position(8).limit(40);
    HostBuffer b = HostBuffer.of(raw, DataType.FLOAT32);
    raw.position(0); // later moves of the caller's buffer do not change the descriptor
    assertThat(b.count()).isEqualTo(8);
    ByteBuffer view = b.byteBuffer();
    assertThat(view.order()).isEqualTo(ByteOrder.nativeOrder());
    assertThat(view.remaining()).isEqualTo(32);
    view.putFloat(4, 2.5f);
    assertThat(raw.order(ByteOrder.nativeOrder()).getFloat(12)).isEqualTo(2.5f);

    HostBuffer tail = b.slice(6, 2);
    tail.byteBuffer().putFloat(0, 7f);
    assertThat(raw.getFloat(8 + 24)).isEqualTo(7f);
  }

  @Test
  void shouldRejectPartialElementsAndRangesOutsideTheBuffer() {
    ByteBuffer raw = ByteBuffer.allocate(10);
    assertThatThrownBy(() -> HostBuffer.of(raw, DataType.FLOAT64))
        .hasMessageContaining("10 bytes remaining")
        .hasMessageContaining("FLOAT64");
    assertThatThrownBy(() -> HostBuffer.of(new float[4], 3, 2))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessageContaining("elements [3, 5) are outside a buffer of 4");
    assertThatThrownBy(() -> HostBuffer.of(new float[4]).slice(-1, 1))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> HostBuffer.ofAddress(0, 5, DataType.INT8))
        .hasMessageContaining("address : 0");
    assertThatThrownBy(() -> HostBuffer.of(new float[1]).address())
        .hasMessage("this HostBuffer is ARRAY, not ADDRESS");
  }

  @Test
  void shouldOffsetRawAddressesInBytes() {
    HostBuffer b = HostBuffer.ofAddress(0x1000, 100, DataType.FLOAT64);
    assertThat(b.slice(10, 5).address()).isEqualTo(0x1000 + 80);
    assertThat(HostBuffer.ofAddress(0, 0, DataType.FLOAT64).count()).isZero();
  }

  @Test
  void shouldValidateDeviceBuffers() {
    DeviceBuffer d = new DeviceBuffer(0x7f0000000000L, 1, 0, 1024, DataType.BFLOAT16);
    assertThat(d.sizeBytes()).isEqualTo(2048);
    assertThat(d.slice(512, 10).devicePointer()).isEqualTo(0x7f0000000000L + 1024);
    assertThat(d.onStream(42).stream()).isEqualTo(42);
    assertThatThrownBy(() -> new DeviceBuffer(0, 0, 0, 1, DataType.FLOAT32))
        .hasMessageContaining("devicePointer : 0 for 1 elements");
    assertThatThrownBy(() -> new DeviceBuffer(0x1002, 0, 0, 1, DataType.FLOAT32))
        .hasMessageContaining("0x1002 is not aligned to 4 bytes");
    assertThatThrownBy(() -> new DeviceBuffer(0x1000, -1, 0, 1, DataType.FLOAT32))
        .hasMessageContaining("deviceIndex : -1");
  }
}
