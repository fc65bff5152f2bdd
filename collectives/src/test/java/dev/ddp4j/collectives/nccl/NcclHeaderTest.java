package dev.ddp4j.collectives.nccl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.ddp4j.DataType;
import dev.ddp4j.ReduceOp;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The JNA mapping of libnccl.so.2 against NCCL's own header: every dtype, op and result code is the
 * header's value, ncclUniqueId is NCCL_UNIQUE_ID_BYTES long, and the config ddp4j passes is laid
 * out in memory exactly as the first fields of the header's ncclConfig_t. Checked against the
 * excerpt kept in test resources and, where one is installed (the GPU machine),
 * /usr/include/nccl.h.
 */
public class NcclHeaderTest {

  private static final Path INSTALLED = Path.of("/usr/include/nccl.h");

  private static final Map<DataType, String> DTYPES =
      Map.of(
          DataType.INT8, "ncclInt8",
          DataType.UINT8, "ncclUint8",
          DataType.INT32, "ncclInt32",
          DataType.INT64, "ncclInt64",
          DataType.FLOAT16, "ncclFloat16",
          DataType.FLOAT32, "ncclFloat32",
          DataType.FLOAT64, "ncclFloat64",
          DataType.BFLOAT16, "ncclBfloat16");

  private static final Map<ReduceOp, String> OPS =
      Map.of(
          ReduceOp.SUM, "ncclSum",
          ReduceOp.PRODUCT, "ncclProd",
          ReduceOp.MAX, "ncclMax",
          ReduceOp.MIN, "ncclMin",
          ReduceOp.AVG, "ncclAvg");

  private static NcclHeader excerpt() throws IOException {
    try (InputStream in = NcclHeaderTest.class.getResourceAsStream("/nccl/nccl-h-excerpt.h")) {
      return new NcclHeader(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  private static NcclHeader installed() throws IOException {
    assumeTrue(Files.isReadable(INSTALLED), "no NCCL header installed at " + INSTALLED);
    return new NcclHeader(Files.readString(INSTALLED));
  }

  @Test
  void shouldMapEveryDtypeAndOpToTheHeadersValues() throws IOException {
    checkEnums(excerpt());
  }

  @Test
  void shouldMapEveryDtypeAndOpToTheInstalledHeadersValues() throws IOException {
    checkEnums(installed());
  }

  @Test
  void shouldReadTheConfigMagicWrittenAsALiteralAsOlderHeadersDo() {
    // NCCL 2.14-2.2x headers have no NCCL_API_MAGIC: the initializer holds the number itself.
    NcclHeader old =
        new NcclHeader(
            "#define NCCL_CONFIG_INITIALIZER {  \\\n  sizeof(ncclConfig_t), /* size */ \\\n"
                + "  0xcafebeef, /* magic */ \\\n  NCCL_VERSION(2, 14, 3), /* version */ \\\n}\n");
    assertThat((int) old.configMagic()).isEqualTo(NcclConfig.API_MAGIC);
    assertThat(NcclTypes.redOp(ReduceOp.AVG, 1)).isEqualTo(NcclTypes.redOp(ReduceOp.SUM));
    assertThat(NcclTypes.redOp(ReduceOp.AVG, 2)).isEqualTo(4);
  }

  @Test
  void shouldLayOutTheUniqueIdAndConfigAsTheHeaderDoes() throws IOException {
    checkStructs(excerpt());
  }

  @Test
  void shouldLayOutTheUniqueIdAndConfigAsTheInstalledHeaderDoes() throws IOException {
    checkStructs(installed());
  }

  private static void checkEnums(NcclHeader h) {
    Map<String, Long> types = h.enumValues("ncclDataType_t");
    for (DataType t : DataType.values()) {
      assertThat((long) NcclTypes.dataType(t))
          .as(t + " as " + DTYPES.get(t))
          .isEqualTo(types.get(DTYPES.get(t)));
    }
    Map<String, Long> ops = h.enumValues("ncclRedOp_t");
    for (ReduceOp op : ReduceOp.values()) {
      assertThat((long) NcclTypes.redOp(op))
          .as(op + " as " + OPS.get(op))
          .isEqualTo(ops.get(OPS.get(op)));
    }
    Map<String, Long> results = h.enumValues("ncclResult_t");
    results.forEach(
        (name, value) -> {
          if (!name.equals("ncclNumResults")) {
            assertThat(NcclTypes.resultName(value.intValue())).isEqualTo(name);
          }
        });
    assertThat((long) NcclTypes.SUCCESS).isEqualTo(results.get("ncclSuccess"));
    assertThat((long) NcclTypes.IN_PROGRESS).isEqualTo(results.get("ncclInProgress"));
  }

  private static void checkStructs(NcclHeader h) {
    assertThat(Integer.parseInt(h.define("NCCL_UNIQUE_ID_BYTES"))).isEqualTo(128);
    assertThat(new NcclUniqueId().size()).isEqualTo(NcclUniqueId.BYTES).isEqualTo(128);
    assertThat(new NcclUniqueId.ByValue(new byte[128]).size()).isEqualTo(128);
    assertThat(h.structFields("ncclUniqueId"))
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.name()).isEqualTo("internal");
              assertThat(f.size()).isEqualTo(128);
            });

    assertThat((int) h.configMagic()).isEqualTo(NcclConfig.API_MAGIC);
    assertThat(h.define("NCCL_CONFIG_UNDEF_INT")).isEqualTo("INT_MIN");
    assertThat(NcclConfig.UNDEF_INT).isEqualTo(Integer.MIN_VALUE);

    List<NcclHeader.Field> fields = h.structFields("ncclConfig_t");
    List<String> ours =
        List.of(NcclConfig.class.getAnnotation(com.sun.jna.Structure.FieldOrder.class).value());
    assertThat(fields.size()).isGreaterThan(ours.size());
    assertThat(fields.subList(0, ours.size()).stream().map(NcclHeader.Field::name).toList())
        .isEqualTo(ours);
    NcclConfig c = NcclConfig.nonBlocking();
    // What NCCL reads: `size` bytes, so no byte of a field this struct lacks.
    assertThat(c.size).isEqualTo(c.size()).isEqualTo(fields.get(ours.size()).offset());

    // The bytes as JNA writes them, at the header's offsets.
    Memory name = new Memory(8);
    c.cgaClusterSize = 0x11111111;
    c.minCTAs = 0x22222222;
    c.maxCTAs = 0x33333333;
    c.netName = name;
    c.write();
    Pointer p = c.getPointer();
    Map<String, NcclHeader.Field> byName = new java.util.HashMap<>();
    fields.forEach(f -> byName.put(f.name(), f));
    assertThat(p.getLong(byName.get("size").offset())).isEqualTo(c.size());
    assertThat(p.getInt(byName.get("magic").offset())).isEqualTo(0xcafebeef);
    assertThat(p.getInt(byName.get("version").offset())).isEqualTo(21400);
    assertThat(p.getInt(byName.get("blocking").offset())).isZero();
    assertThat(p.getInt(byName.get("cgaClusterSize").offset())).isEqualTo(0x11111111);
    assertThat(p.getInt(byName.get("minCTAs").offset())).isEqualTo(0x22222222);
    assertThat(p.getInt(byName.get("maxCTAs").offset())).isEqualTo(0x33333333);
    assertThat(p.getLong(byName.get("netName").offset())).isEqualTo(Pointer.nativeValue(name));
  }
}
