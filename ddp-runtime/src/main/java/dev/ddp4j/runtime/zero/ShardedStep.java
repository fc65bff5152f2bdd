package dev.ddp4j.runtime.zero;

import dev.ddp4j.ProcessGroup;
import java.time.Duration;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * What the model's DL4J updater does under ZeRO-1, called by DL4J where its own updater would run
 * (after DdpModel's gradient wait, before DL4J's step subtracts the flat gradient from the
 * parameters): update this rank's shard, then all-gather the shards' updates, so every rank's step
 * subtracts the same full update.
 */
final class ShardedStep {

  private final ProcessGroup group;
  private final ShardedUpdater shard;
  private final ShardedComm comm;
  // The full state, assembled for a checkpoint while one is written; null otherwise.
  private INDArray checkpointState;
  private boolean inCheckpoint;

  ShardedStep(ProcessGroup group, ShardedUpdater shard, ShardedComm comm) {
    this.group = group;
    this.shard = shard;
    this.comm = comm;
  }

  void update(
      INDArray gradient,
      INDArray modelGradient,
      INDArray params,
      int iteration,
      int epoch,
      int batchSize,
      boolean divide) {
    // DL4J hands over another array object over the same memory (its Gradient's flat view).
    if (gradient != modelGradient
        && (gradient.length() != modelGradient.length()
            || gradient.data().address() != modelGradient.data().address()
            || gradient.offset() != modelGradient.offset())) {
      throw new IllegalStateException(
          "zeroRedundancy: DL4J's updater was handed a gradient other than the model's own flat"
              + " gradient (an external gradient); ZeRO-1 updates the model's gradient buffer only");
    }
    Duration timeout = group.timeout();
    try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
      shard.apply(modelGradient, params, iteration, epoch, batchSize, divide, comm::startGather);
      comm.finishGathers(timeout);
    }
  }

  ShardedUpdater shard() {
    return shard;
  }

  /**
   * The state DL4J's serializer sees: inside {@link #gatherForCheckpoint}, the gathered full state
   * (null for an updater without state).
   *
   * @throws IllegalStateException outside a checkpoint: the state is sharded, and a save that does
   *     not gather it would silently drop it
   */
  INDArray checkpointState() {
    if (!inCheckpoint) {
      throw new IllegalStateException(
          "zeroRedundancy: the updater state is sharded over the ranks, so the model's updater"
              + " cannot hand out its full state here (save with Checkpoints.save(model, group,"
              + " file) on every rank, which gathers it, or close the DdpModel first)");
    }
    return checkpointState;
  }

  /** Collective: assembles the full state for DL4J's serializer until the returned scope closes. */
  ZeroRedundancy.FullState gatherForCheckpoint() {
    try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
      checkpointState = shard.gatherFullState(group, group.timeout());
    }
    inCheckpoint = true;
    return () -> {
      inCheckpoint = false;
      checkpointState = null;
    };
  }
}
