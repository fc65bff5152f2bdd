package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DdpException;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.nccl.NcclProcessGroup;
import java.util.List;
import jcuda.driver.CUstream;

/**
 * A column between hosts over an NCCL communicator of the column's ranks, made when the group is
 * created (the unique id through the store, {@link NcclProcessGroup#subGroup}): NCCL all-reduces
 * the block in place on the column's stream, over the NIC. Its watchdog aborts the communicator on
 * a timeout or a dead peer, which fails the cuda group's works ({@link #failure}).
 */
final class NcclColumn implements ColumnPath {

  private final NcclProcessGroup nccl;

  private NcclColumn(NcclProcessGroup nccl) {
    this.nccl = nccl;
  }

  /**
   * Makes the column's communicator (collective over the column's ranks: all of them get one, or
   * all fail).
   *
   * @param position the column
   * @param island this rank's island: its rank in the column
   * @param islands the column's size
   */
  static NcclColumn open(CudaRoutes.Group g, int position, int island, int islands) {
    return new NcclColumn(
        NcclProcessGroup.subGroup(
            g.prefix() + "/column" + position + "/nccl",
            island,
            islands,
            g.deviceIndex(),
            g.store(),
            g.timeout()));
  }

  @Override
  public void allReduce(DeviceBuffer block, ReduceOp op, CUstream stream) {
    DeviceBuffer onColumn =
        new DeviceBuffer(
            block.devicePointer(),
            block.deviceIndex(),
            Cu.handle(stream),
            block.count(),
            block.dataType());
    nccl.allReduce(onColumn, onColumn, op);
  }

  @Override
  public long deviceBytes() {
    return 16; // the nccl group's barrier word; NCCL's own buffers are not counted here
  }

  @Override
  public DdpException failure() {
    return nccl.failure();
  }

  @Override
  public String describe() {
    return "NET/NCCL (NCCL " + nccl.library().version() + ", " + nccl.size() + " ranks)";
  }

  @Override
  public List<RuntimeException> close() {
    return CloseSteps.each(nccl);
  }

  @Override
  public String toString() {
    return describe();
  }
}
