package dev.ddp4j.launcher.doctor;

import java.time.Duration;

/**
 * The job the doctor checks the machine for, from the launcher's flags.
 *
 * @param nprocPerNode workers per node; -1 for one per GPU (1 without GPUs), as {@code auto}
 * @param nnodes nodes of the job; above 1, every node's doctor joins the others through the store
 * @param nodeRank this node's rank, -1 for join order
 * @param masterAddr where node 0 hosts the store
 * @param masterPort the store's port (0: a free one, single node only)
 * @param secret the job's store secret, or empty where none is set
 * @param secretSource where the secret came from, for the report
 * @param joinTimeout how long a multi-node doctor waits to reach the store and the other nodes
 * @param programClasspath the job's {@code --classpath}, where ND4J's backend is looked for; empty
 *     where none was given
 */
record DoctorJob(
    int nprocPerNode,
    int nnodes,
    int nodeRank,
    String masterAddr,
    int masterPort,
    String secret,
    String secretSource,
    Duration joinTimeout,
    String programClasspath) {

  boolean isMultiNode() {
    return nnodes > 1;
  }

  /** Ranks on this node, given the GPUs found. */
  int ranksHere(int gpus) {
    return nprocPerNode > 0 ? nprocPerNode : Math.max(1, gpus);
  }
}
