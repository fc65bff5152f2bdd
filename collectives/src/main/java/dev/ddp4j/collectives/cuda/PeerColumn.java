package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DdpException;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import java.util.List;
import jcuda.driver.CUstream;

/** A column of one host: ddp4j's all-reduce kernels over IPC (or its host hops). */
final class PeerColumn implements ColumnPath {

  private final AllReduceLauncher launcher;
  private final String describe;

  PeerColumn(AllReduceLauncher launcher, String describe) {
    this.launcher = launcher;
    this.describe = describe;
  }

  @Override
  public void allReduce(DeviceBuffer block, ReduceOp op, CUstream stream) {
    launcher.reduce(block, block, op, stream);
  }

  @Override
  public long deviceBytes() {
    return launcher.allocatedBytes();
  }

  @Override
  public DdpException failure() {
    return null; // a kernel's failure is the stream's, which the group's events report
  }

  @Override
  public String describe() {
    return describe;
  }

  @Override
  public List<RuntimeException> close() {
    return CloseSteps.each(launcher);
  }

  @Override
  public String toString() {
    return launcher.toString();
  }
}
