package dev.ddp4j.launcher.doctor;

import dev.ddp4j.ConfigException;
import dev.ddp4j.collectives.cuda.GpuPlanning;
import dev.ddp4j.collectives.cuda.HostMemoryNeeds;
import dev.ddp4j.collectives.plan.GpuOrder;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.collectives.transport.TransportConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Free space in the shared-memory folder ({@code DDP4J_SHM_DIR}, default /dev/shm) against what
 * this node's ranks put there: the cpu backend's rings (one file per rank, {@link
 * TransportConfig#ringLayout}), the cuda backend's host hops (one scratch-sized file per ring hop
 * without peer access) and, between hosts, the rings of its host-staged lanes. Where it does not
 * fit, ranks fall back to java.io.tmpdir (slower), and fail where that lacks the room too.
 */
final class SharedMemoryCheck {

  static final String NAME = "shm";

  private SharedMemoryCheck() {}

  /** What the ranks need, and of what. */
  record Need(long bytes, String what) {}

  static List<Finding> check(Machine m, GpuInventory inv, DoctorJob job) {
    TransportConfig c;
    Need need;
    try {
      c = TransportConfig.fromEnvironment(m.env());
      need = need(c, inv, job, m);
    } catch (ConfigException | IllegalArgumentException e) {
      return List.of(Finding.fail(NAME, e.getMessage(), "correct that variable"));
    }
    Path dir = c.shmDir();
    long free = m.usableBytes(dir);
    String where = dir + (m.env().isSet("DDP4J_SHM_DIR") ? " (DDP4J_SHM_DIR)" : "");
    if (need.bytes() == 0) {
      return List.of(
          Finding.ok(
              NAME,
              where
                  + (free < 0 ? " is absent" : " has " + size(free) + " free")
                  + "; "
                  + need.what()));
    }
    String saw = need.what() + " need " + size(need.bytes()) + " in " + where;
    if (free >= need.bytes()) {
      return List.of(Finding.ok(NAME, saw + ", which has " + size(free) + " free"));
    }
    String fix =
        "docker run --shm-size="
            + Math.max(1, (need.bytes() * 2 + (1L << 30) - 1) >> 30)
            + "g, or DDP4J_SHM_DIR=<a larger tmpfs>, or lower DDP4J_SHM_SLOT_BYTES / DDP4J_SHM_SLOTS"
            + (inv.gpus().isEmpty() ? "" : " / DDP4J_CUDA_SCRATCH_MIB");
    String has = free < 0 ? ", which is absent" : ", which has only " + size(free) + " free";
    long fallbackFree = m.usableBytes(c.fallbackDir());
    if (fallbackFree >= need.bytes()) {
      return List.of(
          Finding.warn(
              NAME, saw + has + ": ranks fall back to " + c.fallbackDir() + " (slower)", fix));
    }
    return List.of(
        Finding.fail(
            NAME,
            saw
                + has
                + ", and the fallback "
                + c.fallbackDir()
                + " has "
                + size(Math.max(0, fallbackFree)),
            fix + ", or DDP4J_SHM_DISABLE=1 for sockets"));
  }

  static Need need(TransportConfig c, GpuInventory inv, DoctorJob job, Machine m) {
    int ranks = job.ranksHere(inv.gpus().size());
    String backend = m.env().text("DDP4J_BACKEND", "auto");
    boolean cuda = !inv.gpus().isEmpty() && !backend.equals("cpu");
    long ringFile = c.ringLayout(ranks).fileBytes();
    if (!cuda) {
      if (ranks < 2 || c.shmDisabled()) {
        return new Need(
            0,
            ranks < 2
                ? "1 rank on this node uses no shared memory"
                : "DDP4J_SHM_DISABLE=1: none needed");
      }
      return new Need(ranks * ringFile, ranks + " cpu ranks' rings (" + size(ringFile) + " each)");
    }
    long bytes = 0;
    List<String> what = new ArrayList<>();
    int hops = hostHops(inv.topology(), ranks, m);
    if (hops > 0) {
      long hop = HostMemoryNeeds.hostHopBytes(ranks, m.env());
      bytes += hops * hop;
      what.add(hops + " host hop(s) of the ring (" + size(hop) + " each)");
    }
    if (job.isMultiNode() && !c.shmDisabled()) {
      int lanes = HostMemoryNeeds.stagedLanes(m.env());
      bytes += (long) lanes * ranks * ringFile;
      what.add(lanes + " staging lanes' rings of " + ranks + " ranks");
    }
    if (bytes == 0) {
      return new Need(0, ranks + " GPU ranks pass data over CUDA IPC: no shared memory needed");
    }
    return new Need(bytes, String.join(" and ", what));
  }

  /** Hops of the plan's first ring whose GPUs lack peer access: they go through host memory. */
  private static int hostHops(Topology t, int ranks, Machine m) {
    if (t == null || ranks < 2 || t.deviceCount() < 2) {
      return 0;
    }
    int[] devices = GpuOrder.of(t, Math.min(ranks, t.deviceCount()));
    Plan p = GpuPlanning.plan(t, devices, m.env());
    if (p.directOk()) {
      return 0;
    }
    int[] ring = p.rings().get(0);
    int hops = 0;
    for (int i = 0; i < ring.length; i++) {
      int from = devices[ring[i]];
      int to = devices[ring[(i + 1) % ring.length]];
      hops += t.peerAccess(from, to) ? 0 : 1;
    }
    return hops;
  }

  static String size(long bytes) {
    return bytes >= 1L << 30
        ? String.format(Locale.ROOT, "%.1f GiB", bytes / (double) (1L << 30))
        : String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1L << 20));
  }
}
