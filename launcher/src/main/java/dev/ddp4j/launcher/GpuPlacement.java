package dev.ddp4j.launcher;

import dev.ddp4j.collectives.plan.GpuOrder;
import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.collectives.topology.TopologyDiscovery;
import dev.ddp4j.spi.Settings;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Which GPU each local rank gets. By default the launcher applies {@link GpuOrder}'s recommendation
 * (local rank i on the i-th GPU along the best ring, e.g. NVLink neighbours next to each other) by
 * giving every worker the same reordered {@code CUDA_VISIBLE_DEVICES}, so that local rank i's
 * device 0..n-1 index i is that GPU and every worker still sees all of the job's GPUs (peer access
 * needs both). Nothing is set when the order is the identity, when the user set {@code
 * CUDA_VISIBLE_DEVICES}, or when it is switched off ({@code --no-gpu-order}, {@code
 * DDP4J_GPU_ORDER=0}).
 *
 * @param cudaVisibleDevices the value for every worker, or null to leave the variable alone
 * @param ordinals CUDA ordinal per local rank, or null when unchanged (local rank i on GPU i)
 * @param note what was chosen and why, for the launcher's log; null when there are no GPUs
 */
record GpuPlacement(String cudaVisibleDevices, int[] ordinals, String note) {

  static final String SWITCH_VAR = "DDP4J_GPU_ORDER";
  static final String CUDA_VISIBLE_DEVICES = "CUDA_VISIBLE_DEVICES";

  static GpuPlacement unchanged(String note) {
    return new GpuPlacement(null, null, note);
  }

  /**
   * Chooses the placement of {@code nproc} workers.
   *
   * @param flagOff {@code --no-gpu-order} was given
   * @param gpusPresent the CUDA driver sees GPUs on this machine
   * @throws dev.ddp4j.ConfigException for a {@code DDP4J_GPU_ORDER} other than 0 or 1
   */
  static GpuPlacement choose(int nproc, boolean flagOff, Settings env, boolean gpusPresent) {
    String sw = env.text(SWITCH_VAR, null);
    if (sw != null && !sw.equals("0") && !sw.equals("1")) {
      throw env.invalid(
          SWITCH_VAR, "1 to order GPUs along the best ring, the default, or 0 for 0,1,2,...");
    }
    boolean topoFile = env.isSet("DDP4J_TOPO_FILE");
    if (!gpusPresent && !topoFile) {
      return unchanged(null);
    }
    if (flagOff || "0".equals(sw)) {
      return unchanged(
          "GPU order: off ("
              + (flagOff ? "--no-gpu-order" : SWITCH_VAR + "=0")
              + "): GPU i for local rank i");
    }
    String user = env.text(CUDA_VISIBLE_DEVICES, null);
    if (user != null) {
      return unchanged(
          "GPU order: CUDA_VISIBLE_DEVICES=" + user + " was set by the user; kept as it is");
    }
    Topology t;
    try {
      t = TopologyDiscovery.discover(env, Path.of("/sys"), nproc).topology();
    } catch (RuntimeException e) {
      throw new UsageException("cannot read the topology to order GPUs: " + e.getMessage());
    }
    if (!t.hasGpus() || t.hostCount() > 1 || t.deviceCount() < nproc) {
      return unchanged(
          "GPU order: not applied, the topology shows "
              + t.deviceCount()
              + " device(s) on "
              + t.hostCount()
              + " host(s) for "
              + nproc
              + " workers; GPU i for local rank i");
    }
    int[] order = GpuOrder.of(t, nproc);
    String cvd = GpuOrder.cudaVisibleDevices(t, order);
    int[] ordinals = Arrays.stream(cvd.split(",")).mapToInt(Integer::parseInt).toArray();
    String spelled =
        Arrays.stream(ordinals).mapToObj(Integer::toString).collect(Collectors.joining(","));
    boolean identity = true;
    for (int i = 0; i < ordinals.length; i++) {
      identity &= ordinals[i] == i;
    }
    if (identity) {
      return unchanged("GPU order: " + spelled + " (the identity is already the best ring)");
    }
    return new GpuPlacement(
        cvd,
        ordinals,
        "GPU order: local ranks 0.."
            + (nproc - 1)
            + " on GPUs "
            + spelled
            + " (best ring; CUDA_VISIBLE_DEVICES="
            + cvd
            + " for every worker; --no-gpu-order or "
            + SWITCH_VAR
            + "=0 keeps 0,1,2,...)");
  }
}
