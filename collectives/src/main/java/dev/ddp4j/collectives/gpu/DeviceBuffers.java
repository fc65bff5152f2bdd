package dev.ddp4j.collectives.gpu;

import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.TensorBuffer;

/** The argument checks a device-memory group makes on a collective's buffers, with one message. */
public final class DeviceBuffers {

  private DeviceBuffers() {}

  /**
   * {@code b} as a device buffer on GPU {@code deviceIndex}; throws naming the backend, rank and
   * what was passed otherwise.
   */
  public static DeviceBuffer on(
      String backend, String op, int rank, int deviceIndex, TensorBuffer b) {
    if (!(b instanceof DeviceBuffer d)) {
      throw new IllegalArgumentException(
          op
              + ": the "
              + backend
              + " backend takes DeviceBuffers, got a "
              + b.getClass().getSimpleName()
              + " (use the cpu backend for host memory)");
    }
    if (d.deviceIndex() != deviceIndex) {
      throw new IllegalArgumentException(
          op
              + " on rank "
              + rank
              + ": the buffer is on GPU "
              + d.deviceIndex()
              + " but this rank runs on GPU "
              + deviceIndex
              + " (expected: deviceIndex = LOCAL_RANK)");
    }
    return d;
  }

  /**
   * Gathering collectives read a rank's part while others write the whole, so the part must be
   * block {@code rank} of the whole exactly (in place), or not overlap it.
   */
  public static void blockOrDisjoint(String op, int rank, DeviceBuffer part, DeviceBuffer whole) {
    long mine = whole.devicePointer() + rank * part.sizeBytes();
    if (part.devicePointer() != mine
        && part.devicePointer() < whole.devicePointer() + whole.sizeBytes()
        && whole.devicePointer() < part.devicePointer() + part.sizeBytes()) {
      throw new IllegalArgumentException(
          op
              + ": the per-rank buffer overlaps the whole one but is not block "
              + rank
              + " of it (expected: disjoint, or exactly block rank)");
    }
  }

  /** All-to-all writes every block of the output while peers still read the input: no overlap. */
  public static void disjoint(String op, DeviceBuffer input, DeviceBuffer output) {
    if (input.count() > 0
        && input.devicePointer() < output.devicePointer() + output.sizeBytes()
        && output.devicePointer() < input.devicePointer() + input.sizeBytes()) {
      throw new IllegalArgumentException(
          op + ": input and output overlap (expected: two buffers that do not overlap)");
    }
  }
}
