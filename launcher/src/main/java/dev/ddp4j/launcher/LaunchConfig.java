package dev.ddp4j.launcher;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The launcher's validated settings, built from the command line by {@link LaunchConfigParser}.
 *
 * @param nprocPerNode workers on this node
 * @param nnodes launchers in the job
 * @param nodeRank this node's rank, or -1 for join order
 * @param store where the job's store is: TCP (hosted by one launcher) or a shared file
 * @param storeBindAll bind the store to every interface instead of the master address
 * @param secret the store secret the workers must prove
 * @param maxRestarts group restarts allowed after a failure
 * @param monitorInterval how often the launcher checks workers and peers
 * @param logDir per-rank output files, or null
 * @param output where worker streams go
 * @param localRanksFilter local ranks shown on the console; empty = all
 * @param program what workers run and with which classpath
 * @param programArgs passed to the program
 * @param jvmArgs options for every worker JVM
 * @param numaNodes NUMA node per local rank (-1 = no binding)
 * @param rendezvousTimeout how long nodes wait for each other
 * @param gpus which GPU each local rank gets (CUDA_VISIBLE_DEVICES)
 */
record LaunchConfig(
    int nprocPerNode,
    int nnodes,
    int nodeRank,
    StoreAddress store,
    boolean storeBindAll,
    String secret,
    int maxRestarts,
    Duration monitorInterval,
    Path logDir,
    OutputMode output,
    Set<Integer> localRanksFilter,
    ProgramResolver.Program program,
    List<String> programArgs,
    List<String> jvmArgs,
    int[] numaNodes,
    Duration rendezvousTimeout,
    GpuPlacement gpus) {

  boolean isMultiNode() {
    return nnodes > 1;
  }
}
