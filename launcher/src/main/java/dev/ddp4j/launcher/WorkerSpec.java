package dev.ddp4j.launcher;

/**
 * One worker's place in the job.
 *
 * @param rank global rank
 * @param localRank rank on this node
 * @param worldSize ranks in the job
 * @param localWorldSize ranks on this node
 * @param groupRank this node's rank
 * @param restartCount group restarts before this attempt
 */
public record WorkerSpec(
    int rank, int localRank, int worldSize, int localWorldSize, int groupRank, int restartCount) {

  /** Rank {@code rank} of a first attempt whose {@code ranks} ranks all run on this node. */
  public static WorkerSpec singleNode(int rank, int ranks) {
    return new WorkerSpec(rank, rank, ranks, ranks, 0, 0);
  }
}
