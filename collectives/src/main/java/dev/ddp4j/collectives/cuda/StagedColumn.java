package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DdpException;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.WorkerEnvironment;
import java.util.ArrayDeque;
import java.util.List;
import jcuda.driver.CUstream;

/**
 * A column between hosts through pinned host memory and the cpu backend's sockets ({@link
 * StagedPath} over the column's ranks only): what runs where NCCL is absent or {@code
 * DDP4J_INTER_HOST=socket}. Its collectives fork from and join back into the column's stream.
 */
final class StagedColumn implements ColumnPath {

  private final StagedPath staged;

  /** The column's collectives not yet seen finished, oldest first. */
  private final ArrayDeque<StagedWork> inflight = new ArrayDeque<>();

  private volatile DdpException failure;

  private StagedColumn(StagedPath staged) {
    this.staged = staged;
  }

  /**
   * Joins the column's host group (collective over the column's ranks).
   *
   * @param position the column (rank's position in its island)
   * @param island this rank's island: its rank in the column
   * @param islands the column's size
   */
  static StagedColumn open(CudaRoutes.Group g, int position, int island, int islands) {
    WorkerEnvironment w = g.worker();
    WorkerEnvironment column =
        new WorkerEnvironment(island, islands, 0, 1, island, w.restartCount(), w.initMethod());
    return new StagedColumn(
        StagedPath.open(
            column,
            g.store(),
            g.timeout(),
            "cuda" + g.groupNumber() + "-column" + position + "-staged",
            g.context(),
            g.events(),
            null,
            g.settings()));
  }

  @Override
  public void allReduce(DeviceBuffer block, ReduceOp op, CUstream stream) {
    StagedWork w = (StagedWork) staged.allReduce(block, block, op, stream);
    synchronized (inflight) {
      inflight.addLast(w);
      while (inflight.size() > 1 && inflight.peekFirst().hostFinished()) {
        StagedWork done = inflight.removeFirst();
        if (failure == null && done.hostFailure() != null) {
          failure = done.hostFailure();
        }
      }
    }
  }

  @Override
  public DdpException failure() {
    if (failure != null) {
      return failure;
    }
    synchronized (inflight) {
      for (StagedWork w : inflight) {
        DdpException e = w.hostFailure();
        if (e != null) {
          failure = e;
          return e;
        }
      }
      while (!inflight.isEmpty() && inflight.peekFirst().hostFinished()) {
        inflight.removeFirst(); // finished without error: the loop above saw none
      }
    }
    return null;
  }

  @Override
  public String describe() {
    return "NET/socket (" + staged + ")";
  }

  @Override
  public List<RuntimeException> close() {
    return staged.close();
  }

  @Override
  public String toString() {
    return staged.toString();
  }
}
