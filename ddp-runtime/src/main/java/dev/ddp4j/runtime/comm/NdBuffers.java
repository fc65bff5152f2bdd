package dev.ddp4j.runtime.comm;

import dev.ddp4j.DataType;
import dev.ddp4j.HostBuffer;
import java.nio.ByteBuffer;
import org.bytedeco.javacpp.DoublePointer;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.indexer.DoubleIndexer;
import org.bytedeco.javacpp.indexer.FloatIndexer;
import org.nd4j.linalg.api.buffer.DataBuffer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** Describes ND4J CPU arrays as {@link HostBuffer}s over their native memory, without copying. */
public final class NdBuffers {

  private NdBuffers() {}

  /**
   * The elements of {@code array} in place. The array must be contiguous (a flat buffer or an
   * interval of one) and stay reachable until the collective completes, or ND4J may free its
   * memory.
   */
  public static HostBuffer host(INDArray array) {
    if (array.length() > 0 && array.elementWiseStride() != 1) {
      throw new IllegalArgumentException(
          "array of shape "
              + java.util.Arrays.toString(array.shape())
              + " is not contiguous (elementWiseStride "
              + array.elementWiseStride()
              + "); collectives need a flat buffer or an interval of one");
    }
    DataType type = dataType(array.dataType());
    if (array.length() == 0) {
      return HostBuffer.ofAddress(0, 0, type);
    }
    long address = array.data().address() + array.offset() * array.data().getElementSize();
    return HostBuffer.ofAddress(address, array.length(), type);
  }

  /**
   * An array shaped like {@code like} (FLOAT or DOUBLE) over {@code block}'s memory, without a
   * copy; the caller keeps {@code block} reachable (and its memory allocated) while the array is
   * used.
   */
  public static INDArray arrayOver(HostBuffer block, INDArray like) {
    org.nd4j.linalg.api.buffer.DataType t = like.dataType();
    long n = like.length();
    ByteBuffer bytes = block.byteBuffer();
    DataBuffer data;
    if (t == org.nd4j.linalg.api.buffer.DataType.FLOAT) {
      FloatPointer p = new FloatPointer(bytes.asFloatBuffer());
      data = Nd4j.createBuffer(p, t, n, FloatIndexer.create(p));
    } else if (t == org.nd4j.linalg.api.buffer.DataType.DOUBLE) {
      DoublePointer p = new DoublePointer(bytes.asDoubleBuffer());
      data = Nd4j.createBuffer(p, t, n, DoubleIndexer.create(p));
    } else {
      throw new IllegalArgumentException("ND4J type " + t + " (expected: FLOAT or DOUBLE)");
    }
    return Nd4j.create(data, like.shape(), like.stride(), 0, like.ordering());
  }

  /** The ddp4j type of an ND4J type. */
  public static DataType dataType(org.nd4j.linalg.api.buffer.DataType t) {
    switch (t) {
      case FLOAT:
        return DataType.FLOAT32;
      case DOUBLE:
        return DataType.FLOAT64;
      case HALF:
        return DataType.FLOAT16;
      case BFLOAT16:
        return DataType.BFLOAT16;
      case INT:
        return DataType.INT32;
      case LONG:
        return DataType.INT64;
      case BYTE:
        return DataType.INT8;
      case UBYTE:
        return DataType.UINT8;
      default:
        throw new IllegalArgumentException(
            "ND4J type "
                + t
                + " has no collective type (expected: FLOAT, DOUBLE, HALF, BFLOAT16, INT, LONG, BYTE, UBYTE)");
    }
  }
}
