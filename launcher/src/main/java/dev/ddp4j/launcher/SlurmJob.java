package dev.ddp4j.launcher;

import dev.ddp4j.spi.Settings;
import java.util.List;
import java.util.Optional;

/**
 * What a launcher started by {@code srun} (one task per node) learns from Slurm, so that {@code
 * srun java -jar launcher.jar --nproc-per-node=gpu Train} needs no node flags: the number of nodes,
 * this node's rank and the first node of the allocation as the master address.
 *
 * @param nnodes SLURM_NNODES
 * @param nodeRank SLURM_NODEID
 * @param masterAddr the first host of SLURM_JOB_NODELIST
 */
record SlurmJob(int nnodes, int nodeRank, String masterAddr) {

  /** Empty outside a Slurm job step (no SLURM_JOB_ID or SLURM_NNODES). */
  static Optional<SlurmJob> from(Settings env) {
    if (!env.isSet("SLURM_JOB_ID") || !env.isSet("SLURM_NNODES")) {
      return Optional.empty();
    }
    int nnodes = number(env, "SLURM_NNODES");
    int nodeRank = number(env, "SLURM_NODEID");
    String tasks = env.text("SLURM_NTASKS", null);
    if (tasks != null && !tasks.equals(env.text("SLURM_NNODES", null))) {
      throw new UsageException(
          "Slurm started "
              + tasks
              + " tasks on "
              + nnodes
              + " nodes (SLURM_NTASKS, SLURM_NNODES), but the launcher runs once per node and starts the workers"
              + " itself (expected: srun --ntasks-per-node=1 java -jar launcher.jar ...)");
    }
    String list = env.text("SLURM_JOB_NODELIST").orElse(env.text("SLURM_NODELIST", null));
    if (list == null || list.isBlank()) {
      throw new UsageException(
          "SLURM_JOB_NODELIST is not set, so the first node's address is unknown (expected: run under srun, or pass"
              + " --master-addr)");
    }
    List<String> hosts = SlurmHostList.expand(list);
    if (hosts.size() != nnodes) {
      throw new UsageException(
          "SLURM_JOB_NODELIST='"
              + list
              + "' names "
              + hosts.size()
              + " hosts but SLURM_NNODES="
              + nnodes);
    }
    return Optional.of(new SlurmJob(nnodes, nodeRank, hosts.get(0)));
  }

  private static int number(Settings env, String name) {
    if (!env.isSet(name)) {
      throw env.invalid(name, "what srun sets, e.g. 0");
    }
    return env.whole(name, 0, 0, Integer.MAX_VALUE);
  }

  /**
   * Fills the node flags the user left at their defaults ({@code --nnodes=1}, {@code
   * --node-rank=-1}, {@code --master-addr=127.0.0.1}, no {@code --init-method} or {@code
   * --rdzv-endpoint}); flags given explicitly win.
   */
  void applyTo(LaunchCommand f) {
    if (f.initMethod != null || f.rdzvEndpoint != null) {
      return;
    }
    if (f.nnodes.trim().equals("1")) {
      f.nnodes = Integer.toString(nnodes);
    }
    if (f.nodeRank == -1) {
      f.nodeRank = nodeRank;
    }
    if (f.masterAddr.equals("127.0.0.1")) {
      f.masterAddr = masterAddr;
    }
  }
}
