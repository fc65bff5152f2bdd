package dev.ddp4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DataTypeAndReduceOpTest {

  @Test
  void shouldGiveEveryTypeItsWidth() {
    assertThat(DataType.FLOAT32.sizeBytes()).isEqualTo(4);
    assertThat(DataType.FLOAT64.sizeBytes()).isEqualTo(8);
    assertThat(DataType.FLOAT16.sizeBytes()).isEqualTo(2);
    assertThat(DataType.BFLOAT16.sizeBytes()).isEqualTo(2);
    assertThat(DataType.INT32.sizeBytes()).isEqualTo(4);
    assertThat(DataType.INT64.sizeBytes()).isEqualTo(8);
    assertThat(DataType.INT8.sizeBytes()).isEqualTo(1);
    assertThat(DataType.UINT8.sizeBytes()).isEqualTo(1);
    assertThat(DataType.BFLOAT16.bytesFor(1000)).isEqualTo(2000);
  }

  @Test
  void shouldParseNcclAndEnumNames() {
    assertThat(DataType.parse("half")).isEqualTo(DataType.FLOAT16);
    assertThat(DataType.parse("BF16")).isEqualTo(DataType.BFLOAT16);
    assertThat(DataType.parse(" float ")).isEqualTo(DataType.FLOAT32);
    assertThat(DataType.parse("int64")).isEqualTo(DataType.INT64);
    for (DataType t : DataType.values()) {
      assertThat(DataType.parse(t.name())).isEqualTo(t);
      assertThat(DataType.parse(t.ncclName())).isEqualTo(t);
    }
    assertThat(ReduceOp.parse("prod")).isEqualTo(ReduceOp.PRODUCT);
    assertThat(ReduceOp.parse("Avg")).isEqualTo(ReduceOp.AVG);
  }

  @Test
  void shouldNameTheValueAndTheAcceptedFormsWhenParsingFails() {
    assertThatThrownBy(() -> DataType.parse("float8"))
        .hasMessageContaining("'float8'")
        .hasMessageContaining("float32, float64");
    assertThatThrownBy(() -> ReduceOp.parse("xor"))
        .hasMessageContaining("'xor'")
        .hasMessageContaining("sum, avg, prod, min, max");
    assertThatThrownBy(() -> DataType.FLOAT32.bytesFor(-1)).hasMessageContaining("count : -1");
    assertThatThrownBy(() -> DataType.FLOAT64.bytesFor(Long.MAX_VALUE / 2))
        .isInstanceOf(ArithmeticException.class);
  }
}
