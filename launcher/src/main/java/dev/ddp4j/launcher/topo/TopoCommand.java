package dev.ddp4j.launcher.topo;

import dev.ddp4j.collectives.cuda.GpuPlanning;
import dev.ddp4j.collectives.plan.Algorithm;
import dev.ddp4j.collectives.plan.InterHost;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.plan.Planner;
import dev.ddp4j.collectives.plan.PlannerOptions;
import dev.ddp4j.collectives.topology.MultiHost;
import dev.ddp4j.collectives.topology.NcclTopoXmlReader;
import dev.ddp4j.collectives.topology.NvidiaSmiTopoParser;
import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.collectives.topology.TopologyDiscovery;
import dev.ddp4j.spi.CollectiveChecks;
import dev.ddp4j.spi.Settings;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code launcher.jar topo}: shows the machine as ddp4j sees it and the plan its ranks would run,
 * before any job starts: the path matrix, every ring channel's hops with link type and bandwidth,
 * the predicted bus bandwidth per size and algorithm, and warnings that name the fix.
 */
@Command(
    name = "topo",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Shows this machine's topology (or one from a file) and the routes, algorithms and bandwidth",
      "ddp4j plans for it. Reads DDP4J_ALGO, DDP4J_NCHANNELS, DDP4J_MIN_NCHANNELS, DDP4J_MAX_NCHANNELS,",
      "DDP4J_INTER_HOST and DDP4J_TOPO_FILE like a job does; with --hosts=H it prints the GPU plan",
      "with the column between hosts over NCCL and over the sockets; with --ranks=0,2 the plan and",
      "routes of that subgroup (ProcessGroup.newGroup(0, 2))."
    })
public final class TopoCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--from-nvidia-smi",
      paramLabel = "FILE",
      description = "Read the saved output of `nvidia-smi topo -m` instead of discovering.")
  Path fromNvidiaSmi;

  @Option(
      names = "--from-xml",
      paramLabel = "FILE",
      description = "Read an NCCL topology XML file (NCCL_TOPO_DUMP_FILE output) instead.")
  Path fromXml;

  @Option(
      names = "--nproc",
      paramLabel = "N",
      description = "Ranks per host. Default: every GPU (2 CPU ranks where there is none).")
  Integer nproc;

  @Option(
      names = "--hosts",
      paramLabel = "H",
      defaultValue = "1",
      description = "Plan for H identical hosts joined by their NICs. Default: ${DEFAULT-VALUE}.")
  int hosts;

  @Option(
      names = "--ranks",
      paramLabel = "R,R,...",
      split = ",",
      description = {
        "Plan for the subgroup of these job ranks, as ProcessGroup.newGroup(R, R, ...) makes it:",
        "its rank i is job rank R_i. Default: every rank."
      })
  int[] ranks;

  @Option(names = "--json", description = "Print the plan as JSON (gpus, links, rings, plan).")
  boolean json;

  @Option(
      names = "--svg",
      paramLabel = "FILE",
      description = "Also draw the topology and the rings into FILE (SVG).")
  Path svg;

  /** The environment the planner reads; tests replace it. */
  Settings env = Settings.process();

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    List<String> notes = new ArrayList<>();
    Topology host = load(notes);
    if (hosts < 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--hosts=" + hosts + " (expected: >= 1)");
    }
    int perHost = nproc == null ? host.deviceCount() : nproc;
    if (perHost < 1 || perHost > host.deviceCount()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--nproc="
              + perHost
              + " but the topology has "
              + host.deviceCount()
              + " devices (expected: 1.."
              + host.deviceCount()
              + ")");
    }
    Topology t = hosts == 1 ? host : MultiHost.join(Collections.nCopies(hosts, host));
    int[] devices = devicesFor(t, host, perHost);
    if (ranks != null) {
      devices = subgroupDevices(devices);
      notes.add(
          "subgroup of job ranks "
              + Arrays.stream(ranks).mapToObj(Integer::toString).collect(Collectors.joining(","))
              + " (its rank i is the i-th of them), planned for its own members");
    }
    // GPUs: exactly what a cuda group plans (GpuPlanning), so these lines are its route lines.
    Plan plan =
        t.hasGpus()
            ? GpuPlanning.plan(t, devices, env)
            : Planner.plan(
                t,
                devices,
                PlannerOptions.fromEnvironment(env, false),
                Algorithm.chosenOnCpus(devices.length));
    if (json) {
      out.println(TopoJson.render(t, plan));
    } else {
      notes.forEach(n -> out.println("# " + n));
      out.print(TopoReport.render(t, plan));
      if (t.hasGpus() && hostCount(t, devices) > 1) {
        // Which column a job runs depends on NCCL being on every host: show the other as well.
        InterHost other = plan.interHost().other();
        out.print(TopoReport.otherInterHost(t, plan, GpuPlanning.plan(t, devices, env, other)));
      }
    }
    if (svg != null) {
      Files.writeString(svg, TopoSvg.render(t, plan), StandardCharsets.UTF_8);
      if (!json) {
        out.println("picture written to " + svg);
      }
    }
    out.flush();
    return 0;
  }

  private Topology load(List<String> notes) throws IOException {
    if (fromNvidiaSmi != null && fromXml != null) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--from-nvidia-smi and --from-xml both given (expected: one)");
    }
    if (fromNvidiaSmi != null) {
      notes.add(
          "topology from nvidia-smi text "
              + fromNvidiaSmi
              + " (speeds assumed: PCIe Gen4 x16, 25 GB/s per NVLink)");
      return NvidiaSmiTopoParser.parse(Files.readString(fromNvidiaSmi, StandardCharsets.UTF_8));
    }
    if (fromXml != null) {
      notes.add("topology from NCCL XML " + fromXml);
      return NcclTopoXmlReader.parse(Files.readString(fromXml, StandardCharsets.UTF_8));
    }
    TopologyDiscovery.Result r =
        TopologyDiscovery.discover(env, Path.of("/sys"), nproc == null ? 2 : nproc);
    notes.addAll(r.notes());
    return r.topology();
  }

  /** The devices of {@link #ranks}, in their order, from the job's {@code devices} by rank. */
  private int[] subgroupDevices(int[] devices) {
    try {
      CollectiveChecks.subgroupRanks("--ranks", ranks, devices.length);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    return Arrays.stream(ranks).map(r -> devices[r]).toArray();
  }

  private static long hostCount(Topology t, int[] devices) {
    return Arrays.stream(devices).map(t::hostOf).distinct().count();
  }

  /** The first {@code perHost} devices of each host, in the GPU order the launcher would use. */
  private static int[] devicesFor(Topology t, Topology host, int perHost) {
    int[] local = dev.ddp4j.collectives.plan.GpuOrder.of(host, perHost);
    int[] out = new int[local.length * t.hostCount()];
    for (int h = 0; h < t.hostCount(); h++) {
      for (int i = 0; i < local.length; i++) {
        out[h * local.length + i] = h * host.deviceCount() + local[i];
      }
    }
    return out;
  }
}
