package dev.ddp4j.launcher.bench;

import dev.ddp4j.DataType;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.TensorBuffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The cpu backend's bench buffers: two byte buffers that the collectives use in place, either
 * direct memory of this rank's own or the group's shared host memory ({@link
 * ProcessGroup#allocateHost}).
 */
final class HostBenchMemory implements BenchMemory {

  private final ByteBuffer in;
  private final ByteBuffer out;

  HostBenchMemory(ProcessGroup pg, long maxBytes, boolean shared) {
    in = allocate(pg, Math.max(maxBytes, 64), shared);
    out = allocate(pg, Math.max(maxBytes, 64), shared);
  }

  private static ByteBuffer allocate(ProcessGroup pg, long bytes, boolean shared) {
    if (shared) {
      return pg.allocateHost(bytes, DataType.UINT8).byteBuffer().order(ByteOrder.nativeOrder());
    }
    return ByteBuffer.allocateDirect((int) bytes).order(ByteOrder.nativeOrder());
  }

  @Override
  public TensorBuffer input(long bytes, DataType type) {
    return HostBuffer.of(in.duplicate().clear().limit((int) bytes), type);
  }

  @Override
  public TensorBuffer output(long bytes, DataType type) {
    return HostBuffer.of(out.duplicate().clear().limit((int) bytes), type);
  }

  @Override
  public ByteBuffer hostIn() {
    return in;
  }

  @Override
  public ByteBuffer hostOut() {
    return out;
  }

  @Override
  public void upload(long bytes) {}

  @Override
  public void download(long inBytes, long outBytes) {}

  @Override
  public long sumOverRanks(ProcessGroup pg, long value) {
    long[] total = {value};
    pg.allReduce(HostBuffer.of(total), ReduceOp.SUM).await();
    return total[0];
  }

  @Override
  public boolean queueAll() {
    return false;
  }

  @Override
  public void close() {}
}
