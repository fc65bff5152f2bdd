package dev.ddp4j.collectives.nccl;

import dev.ddp4j.DataType;
import dev.ddp4j.ReduceOp;

/**
 * ddp4j's dtypes, ops and NCCL's result codes as the values of NCCL's C enums ({@code
 * ncclDataType_t}, {@code ncclRedOp_t}, {@code ncclResult_t} in nccl.h). NcclHeaderTest checks
 * every value against an excerpt of the header kept as a test resource.
 */
final class NcclTypes {

  static final int SUCCESS = 0;
  static final int IN_PROGRESS = 7;

  /** {@code ncclResult_t} names by value: 0 = ncclSuccess ... 8 = ncclTimeout. */
  private static final String[] RESULT_NAMES = {
    "ncclSuccess",
    "ncclUnhandledCudaError",
    "ncclSystemError",
    "ncclInternalError",
    "ncclInvalidArgument",
    "ncclInvalidUsage",
    "ncclRemoteError",
    "ncclInProgress",
    "ncclTimeout"
  };

  private NcclTypes() {}

  /** The {@code ncclDataType_t} of {@code t}; every ddp4j dtype has one. */
  static int dataType(DataType t) {
    return switch (t) {
      case INT8 -> 0; // ncclInt8
      case UINT8 -> 1; // ncclUint8
      case INT32 -> 2; // ncclInt32
      case INT64 -> 4; // ncclInt64
      case FLOAT16 -> 6; // ncclFloat16
      case FLOAT32 -> 7; // ncclFloat32
      case FLOAT64 -> 8; // ncclFloat64
      case BFLOAT16 -> 9; // ncclBfloat16 (NCCL 2.10+)
    };
  }

  /** The {@code ncclRedOp_t} of {@code op}: AVG is ncclAvg (NCCL 2.10+), not a sum then divide. */
  static int redOp(ReduceOp op) {
    return switch (op) {
      case SUM -> 0; // ncclSum
      case PRODUCT -> 1; // ncclProd
      case MAX -> 2; // ncclMax
      case MIN -> 3; // ncclMin
      case AVG -> 4; // ncclAvg
    };
  }

  /**
   * The op a communicator of {@code ranks} ranks is given for {@code op}. With one rank the average
   * is the input itself, so AVG goes as ncclSum: NCCL 2.28.3's one-rank path left the last {@code
   * count mod 16} elements of an out-of-place ncclAvg unwritten on an H200 (NcclGpuTest, every
   * dtype), while its one-rank sum is a plain copy.
   */
  static int redOp(ReduceOp op, int ranks) {
    return ranks == 1 && op == ReduceOp.AVG ? redOp(ReduceOp.SUM) : redOp(op);
  }

  /** e.g. {@code ncclRemoteError}, or {@code ncclResult 12} for a code this table lacks. */
  static String resultName(int result) {
    return result >= 0 && result < RESULT_NAMES.length
        ? RESULT_NAMES[result]
        : "ncclResult " + result;
  }
}
