package dev.ddp4j.collectives.cuda.harness;

import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.cuda.CudaProcessGroup;
import dev.ddp4j.collectives.cuda.SwitchableChooser;
import dev.ddp4j.collectives.gpu.DeviceGroup;
import dev.ddp4j.collectives.gpu.HostDeviceGroup;
import dev.ddp4j.collectives.nccl.NcclProcessGroup;
import dev.ddp4j.collectives.store.FileStore;
import dev.ddp4j.collectives.topology.CudaProbe;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The GPU machine's entry point for the cuda backend, for use without the launcher (the bundle runs
 * it): {@code check --nproc N [--quick] [--algos ring,oneshot]} runs the correctness cases, {@code
 * bench --nproc N [--variants auto,oneshot,twoshot] [--min-bytes 8] [--max-bytes 536870912]} prints
 * the all-reduce table, {@code routes} only creates a group (for its {@code DDP4J_DEBUG=INFO} route
 * lines), {@code staged-check [--large]} and {@code staged-missing} check a host-staged group (set
 * {@code DDP4J_P2P_DISABLE=1} or {@code DDP4J_P2P_DISABLE_PAIRS}, or pass {@code --host-per-rank}
 * to give every rank a {@code DDP4J_HOST_ID} of its own), {@code host} runs host-buffer and device
 * cases through the group {@code Ddp.init()} returns (either backend), {@code subgroups} its
 * subgroups (split, newGroup, nested; either backend), {@code p2p-check [--no-p2p]} point-to-point,
 * reduce, gather, scatter and all-to-all on device buffers ({@link P2pCheck}; {@code --no-p2p}: a
 * route without peer memory, where isend must refuse). {@code --ranks-per-host K} puts every K
 * ranks on a fake host of their own (the multi-host hierarchical route, with any mode). With {@code
 * --backend nccl}, {@code check}, {@code stuck} and {@code missing} run on an nccl group instead
 * (see {@link #ncclWork}). It starts N worker JVMs (one per GPU) and prints rank 0's output, and
 * every rank's on failure. Exit status 0 only if every rank passed.
 */
public final class GpuHarness {

  private GpuHarness() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println("usage: GpuHarness check|bench --nproc N [options]");
      System.exit(2);
    }
    List<String> rest = new ArrayList<>(Arrays.asList(args));
    boolean worker = rest.remove("--worker");
    String mode = rest.get(0);
    if (worker) {
      System.exit(work(mode, rest));
    }
    int nproc =
        Integer.parseInt(option(rest, "--nproc", Integer.toString(CudaProbe.gpus().size())));
    List<String> workerArgs = new ArrayList<>(rest);
    workerArgs.add("--worker");
    LocalRanks.Result r =
        LocalRanks.run(
            nproc,
            GpuHarness.class.getName(),
            workerArgs,
            rankMemory(nproc),
            Duration.ofMinutes(8),
            fakeHosts(rest));
    System.out.print(r.outputs().get(0));
    for (int i = 1; i < nproc; i++) {
      if (r.exitCodes().get(i) != 0) {
        System.out.println("---- rank " + i + " exited " + r.exitCodes().get(i) + ":");
        System.out.print(r.outputs().get(i));
      }
    }
    System.out.println(
        "# "
            + mode
            + " with "
            + nproc
            + " rank(s): exit codes "
            + r.exitCodes()
            + (r.allPassed() ? " PASS" : " FAIL"));
    System.exit(r.allPassed() ? 0 : 1);
  }

  /**
   * {@code --host-per-rank}: every rank a host of its own; {@code --ranks-per-host K}: ranks 0..K-1
   * on fake host 0, K..2K-1 on host 1, ... (their own DDP4J_HOST_ID, LOCAL_RANK and
   * LOCAL_WORLD_SIZE), so that one machine runs a multi-host cuda group.
   */
  /**
   * Heap and direct-memory caps per rank JVM: 4 and 6 GiB up to 8 ranks, shrunk so that all ranks
   * together stay within 3/4 of the machine's memory (32 ranks at 4 + 6 GiB on the 128 GiB GPU
   * machine had the kernel kill a rank mid-run).
   */
  static List<String> rankMemory(int ranks) {
    long total =
        ((com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean())
            .getTotalMemorySize();
    long perRankMib = total / 4 * 3 / Math.max(1, ranks) >> 20;
    long heapMib = Math.max(512, Math.min(4096, perRankMib * 2 / 5));
    long directMib = Math.max(512, Math.min(6144, perRankMib * 3 / 5));
    return List.of("-Xmx" + heapMib + "m", "-XX:MaxDirectMemorySize=" + directMib + "m");
  }

  private static java.util.Map<String, String> fakeHosts(List<String> args) {
    if (args.contains("--host-per-rank")) {
      return java.util.Map.of("DDP4J_HOST_ID", "host{rank}");
    }
    String k = option(args, "--ranks-per-host", null);
    if (k == null) {
      return java.util.Map.of();
    }
    return java.util.Map.of(
        "DDP4J_HOST_ID",
        "host{rank/" + k + "}",
        "LOCAL_RANK",
        "{rank%" + k + "}",
        "LOCAL_WORLD_SIZE",
        k);
  }

  static String option(List<String> args, String name, String dflt) {
    int i = args.indexOf(name);
    return i >= 0 && i + 1 < args.size() ? args.get(i + 1) : dflt;
  }

  private static int work(String mode, List<String> args) {
    WorkerEnvironment w = LocalRanks.worker();
    String t = System.getenv("DDP4J_TIMEOUT_SECONDS");
    Duration timeout = Duration.ofSeconds(t == null ? 60 : Long.parseLong(t.trim()));
    if (option(args, "--backend", "cuda").equals("nccl")) {
      return ncclWork(mode, args, w, timeout);
    }
    try (FileStore store = LocalRanks.store(timeout)) {
      SwitchableChooser chooser = new SwitchableChooser();
      CudaProcessGroup pg = chooser.join(w, store, timeout, 240L << 20);
      int failures;
      if (mode.equals("host")) {
        return hostAndDevice(pg, chooser, w, store, timeout);
      }
      if (mode.equals("subgroups")) {
        return SubgroupCheck.run(pg, w, store, timeout) == 0 ? 0 : 1;
      }
      if (mode.equals("routes")) { // the group's set-up alone: its route lines
        failures = 0;
        System.out.printf("# rank %d: group created (%s)%n", w.rank(), pg.backend());
      } else if (mode.equals("staged-check")) {
        StagedCheck c = new StagedCheck(pg, chooser, System.out);
        c.runAll(args.contains("--large"));
        failures = c.failed();
        System.out.printf("# rank %d: %d staged cases, %d failed%n", w.rank(), c.cases(), failures);
      } else if (mode.equals("p2p-check")) {
        P2pCheck c = new P2pCheck(pg, System.out);
        c.runAll(!args.contains("--no-p2p"));
        failures = c.failed();
        System.out.printf(
            "# rank %d: %d p2p and rooted cases on route %s, %d failed%n",
            w.rank(), c.cases(), pg.allReduceRoute(), failures);
      } else if (mode.equals("staged-missing")) {
        failures = StagedCheck.missingRank(pg, store, System.out);
        try {
          pg.close();
        } catch (RuntimeException e) {
          System.out.println("close after the missing rank: " + e.getMessage());
        }
        return failures == 0 ? 0 : 1;
      } else if (mode.equals("check")) {
        AllReduceCheck c = new AllReduceCheck(pg, chooser, System.out);
        c.runAll(
            !args.contains("--quick"),
            Arrays.asList(
                option(args, "--algos", "ll,oneshot,twoshot,copyengine,ring").split(",")));
        failures = c.failed();
        System.out.printf(
            "# rank %d: %d cases, %d failed; extra device memory %d MiB%n",
            w.rank(), c.cases(), c.failed(), pg.extraDeviceMemoryBytes() >> 20);
      } else {
        AllReduceBench b = new AllReduceBench(pg, chooser, System.out);
        failures =
            b.run(
                Arrays.asList(option(args, "--variants", "auto").split(",")),
                Long.parseLong(option(args, "--min-bytes", "8")),
                Long.parseLong(option(args, "--max-bytes", Long.toString(512L << 20))));
      }
      pg.close();
      return failures == 0 ? 0 : 1;
    } catch (RuntimeException e) {
      e.printStackTrace(System.out);
      return 3;
    }
  }

  /**
   * {@code host}: the group {@code Ddp.init()} returns ({@link HostDeviceGroup} over {@code pg}):
   * every collective on host buffers through its host half (CorrectnessScenario, checked against
   * the sequential reference), then the quick device cases through the same group, so both memories
   * run in one group. Closes the group.
   */
  private static int hostAndDevice(
      DeviceGroup pg,
      SwitchableChooser chooser,
      WorkerEnvironment w,
      FileStore store,
      Duration timeout) {
    try (HostDeviceGroup both =
        HostDeviceGroup.over(pg, w, store, timeout, dev.ddp4j.spi.Settings.process())) {
      new dev.ddp4j.collectives.cpu.CorrectnessScenario().run(both, new String[0]);
      System.out.printf("# rank %d: host buffers on the %s group passed%n", w.rank(), pg.backend());
      AllReduceCheck c = new AllReduceCheck(both, chooser, System.out);
      c.runAll(false, List.of("auto"));
      System.out.printf(
          "# rank %d: %d device cases after the host ones, %d failed%n",
          w.rank(), c.cases(), c.failed());
      return c.failed() == 0 ? 0 : 1;
    }
  }

  /**
   * {@code --backend nccl}: {@code check} runs the correctness cases on an nccl group (no
   * algorithms to choose), {@code stuck} and {@code missing} its failure paths (NcclFailureCheck).
   */
  private static int ncclWork(
      String mode, List<String> args, WorkerEnvironment w, Duration timeout) {
    try (FileStore store = LocalRanks.store(timeout)) {
      NcclProcessGroup pg = NcclProcessGroup.create(w, store, timeout);
      System.out.printf(
          "# rank %d: nccl group, NCCL %s from %s%n",
          w.rank(), pg.library().version(), pg.library().path());
      if (mode.equals("host")) {
        return hostAndDevice(pg, null, w, store, timeout);
      }
      if (mode.equals("subgroups")) {
        return SubgroupCheck.run(pg, w, store, timeout) == 0 ? 0 : 1;
      }
      int failures;
      if (mode.equals("stuck")) {
        return NcclFailureCheck.stuck(pg, System.out) == 0 ? 0 : 1;
      } else if (mode.equals("missing")) {
        return NcclFailureCheck.missing(pg, System.out) == 0 ? 0 : 1;
      } else if (mode.equals("p2p-check")) {
        P2pCheck c = new P2pCheck(pg, System.out);
        c.runAll(true);
        failures = c.failed();
        System.out.printf(
            "# rank %d: %d p2p and rooted cases, %d failed%n", w.rank(), c.cases(), failures);
      } else {
        AllReduceCheck c = new AllReduceCheck(pg, null, System.out);
        c.runAll(!args.contains("--quick"), List.of("auto"));
        failures = c.failed();
        System.out.printf("# rank %d: %d cases, %d failed%n", w.rank(), c.cases(), c.failed());
      }
      pg.close();
      return failures == 0 ? 0 : 1;
    } catch (RuntimeException e) {
      e.printStackTrace(System.out);
      return 3;
    }
  }
}
