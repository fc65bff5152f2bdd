package dev.ddp4j.launcher.doctor;

import dev.ddp4j.collectives.cuda.HostMemoryNeeds;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Kernel limits a job runs into: the locked-memory limit ({@code ulimit -l}, against the pinned
 * staging of the cuda backend and what RDMA registration needs), and Yama's {@code ptrace_scope},
 * which decides whether ranks of one node may read each other's buffers by cross-memory attach.
 */
final class LimitsCheck {

  static final String MEMLOCK = "memlock";
  static final String PTRACE = "ptrace";

  private LimitsCheck() {}

  static List<Finding> check(Machine m, GpuInventory inv, DoctorJob job) {
    return List.of(memlock(m, inv, job), ptrace(m));
  }

  private static Finding memlock(Machine m, GpuInventory inv, DoctorJob job) {
    Optional<Long> limit = lockedLimitBytes(m.procRoot());
    if (limit.isEmpty()) {
      return Finding.ok(
          MEMLOCK, "locked-memory limit unknown (" + m.procRoot() + "/self/limits unreadable)");
    }
    String saw =
        "ulimit -l is "
            + (limit.get() == Long.MAX_VALUE ? "unlimited" : SharedMemoryCheck.size(limit.get()));
    if (inv.gpus().isEmpty()) {
      return Finding.ok(MEMLOCK, saw + "; no GPU, so no pinned staging");
    }
    long need = HostMemoryNeeds.stagingBytes(m.env());
    if (limit.get() >= need) {
      return Finding.ok(
          MEMLOCK,
          saw + ", at least the " + SharedMemoryCheck.size(need) + " of pinned staging per rank");
    }
    return Finding.warn(
        MEMLOCK,
        saw
            + ", below the "
            + SharedMemoryCheck.size(need)
            + " of pinned staging per rank"
            + (job.isMultiNode()
                ? " between hosts; RDMA (NCCL over InfiniBand) registers memory against it too"
                : ""),
        "ulimit -l unlimited (limits.conf memlock), or docker run --ulimit memlock=-1");
  }

  /** The soft {@code Max locked memory} of {@code /proc/self/limits}; MAX_VALUE for unlimited. */
  static Optional<Long> lockedLimitBytes(Path proc) {
    try {
      for (String line : Files.readAllLines(proc.resolve("self/limits"))) {
        if (line.startsWith("Max locked memory")) {
          String soft = line.substring("Max locked memory".length()).trim().split("\\s+")[0];
          return Optional.of(soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft));
        }
      }
    } catch (IOException | NumberFormatException e) {
      // unknown
    }
    return Optional.empty();
  }

  private static Finding ptrace(Machine m) {
    Path scope = m.procRoot().resolve("sys/kernel/yama/ptrace_scope");
    String v;
    try {
      v = Files.readString(scope).trim();
    } catch (IOException e) {
      return Finding.ok(
          PTRACE, "no Yama: ranks of one node may read each other by cross-memory attach");
    }
    return switch (v) {
      case "0" ->
          Finding.ok(
              PTRACE,
              "Yama ptrace_scope=0: ranks of one node may read each other by cross-memory attach");
      case "1" ->
          Finding.ok(
              PTRACE,
              "Yama ptrace_scope=1: each rank allows its node peers (prctl PR_SET_PTRACER), so cross-memory"
                  + " attach works");
      default ->
          Finding.warn(
              PTRACE,
              "Yama ptrace_scope="
                  + v
                  + ": no cross-memory attach between ranks, so all-reduces of 8-16 MiB on one node go through"
                  + " the rings (slower)",
              "sysctl kernel.yama.ptrace_scope=1 (needs root; 3 only changes at reboot), or"
                  + " DDP4J_CMA_DISABLE=1 to accept it");
    };
  }
}
