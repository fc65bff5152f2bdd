package dev.ddp4j.launcher.doctor;

import dev.ddp4j.ConfigException;
import dev.ddp4j.collectives.store.StoreSecret;
import dev.ddp4j.spi.Settings;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.LongSupplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code launcher.jar doctor}: checks this node (and, with the job's multi-node flags, every node
 * through the store) for what makes jobs hang or crawl, one line per check: {@code OK}, {@code
 * WARN} or {@code FAIL}, what it saw and the fix.
 */
@Command(
    name = "doctor",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Checks this machine for a job: GPUs and driver, ND4J's backend (with --classpath), peer",
      "access, shared memory, NUMA, network, the store port and secret, locked-memory and ptrace",
      "limits; with --nnodes > 1 every node's doctor joins the store (run it on every node with",
      "the job's flags) and node 0 reports all.",
      "Exit status: 0 when no check FAILs (WARN included), 1 otherwise, 2 bad usage."
    })
public final class DoctorCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(names = "--json", description = "Print the findings as JSON.")
  boolean json;

  @Option(
      names = "--nproc-per-node",
      paramLabel = "N|auto",
      defaultValue = "auto",
      description =
          "Workers per node to check for. Default: ${DEFAULT-VALUE} (one per GPU, else 1).")
  String nprocPerNode;

  @Option(
      names = "--nnodes",
      paramLabel = "N",
      defaultValue = "1",
      description = "Nodes of the job; above 1 the nodes' doctors meet. Default: ${DEFAULT-VALUE}.")
  int nnodes;

  @Option(
      names = "--node-rank",
      paramLabel = "K",
      defaultValue = "-1",
      description = "This node's rank; -1 for join order. Default: ${DEFAULT-VALUE}.")
  int nodeRank;

  @Option(
      names = "--master-addr",
      paramLabel = "HOST",
      defaultValue = "127.0.0.1",
      description = "Node 0's address, where the store runs. Default: ${DEFAULT-VALUE}.")
  String masterAddr;

  @Option(
      names = "--master-port",
      paramLabel = "PORT",
      defaultValue = "29500",
      description = "The store's port. Default: ${DEFAULT-VALUE}.")
  int masterPort;

  @Option(
      names = "--store-secret-file",
      paramLabel = "PATH",
      description = "The job's secret (or DDP4J_STORE_SECRET / DDP4J_STORE_SECRET_FILE).")
  Path storeSecretFile;

  @Option(
      names = "--rdzv-timeout",
      paramLabel = "SECONDS",
      defaultValue = "60",
      description =
          "How long to wait for the store and the other nodes. Default: ${DEFAULT-VALUE}.")
  double rdzvTimeoutSeconds;

  @Option(
      names = {"--classpath", "-cp"},
      paramLabel = "PATH",
      description =
          "The job's --classpath (jars and folders, ':'-separated), to check ND4J's backend on it."
              + " Default: none (not checked).")
  String classpath;

  /** The machine checked; tests give a recorded one. */
  Machine machine;

  /** The wall clock the skew check reads; tests shift it. */
  LongSupplier clockMs = System::currentTimeMillis;

  /** The environment of the real machine; tests replace it. */
  Settings env = Settings.process();

  @Override
  public Integer call() {
    Machine m = machine != null ? machine : new RealMachine(env);
    DoctorJob job = job(m.env());
    List<Finding> findings = Doctor.examine(m, job, clockMs);
    PrintWriter out = spec.commandLine().getOut();
    out.print(
        json
            ? DoctorReport.json(m.hostName(), findings) + "\n"
            : DoctorReport.text(m.hostName(), findings));
    out.flush();
    return DoctorReport.worst(findings) == Finding.Status.FAIL ? 1 : 0;
  }

  private DoctorJob job(Settings env) {
    int nproc;
    String n = nprocPerNode.trim().toLowerCase(Locale.ROOT);
    try {
      nproc = n.equals("auto") || n.equals("gpu") ? -1 : Integer.parseInt(n);
    } catch (NumberFormatException e) {
      nproc = 0;
    }
    if (nproc == 0 || nproc < -1) {
      throw usage("--nproc-per-node=" + nprocPerNode + " (expected: a number >= 1, or auto)");
    }
    if (nnodes < 1) {
      throw usage("--nnodes=" + nnodes + " (expected: >= 1)");
    }
    if (nodeRank < -1 || nodeRank >= nnodes) {
      throw usage("--node-rank=" + nodeRank + " (expected: -1, or 0 to " + (nnodes - 1) + ")");
    }
    if (masterPort < 0 || masterPort > 65535 || (masterPort == 0 && nnodes > 1)) {
      throw usage(
          "--master-port="
              + masterPort
              + " (expected: 1 to 65535"
              + (nnodes > 1 ? ", the same on every node)" : ", or 0 for a free one)"));
    }
    if (!(rdzvTimeoutSeconds > 0)) {
      throw usage("--rdzv-timeout=" + rdzvTimeoutSeconds + " (expected: seconds > 0)");
    }
    String secret = "";
    String source = "";
    try {
      if (storeSecretFile != null) {
        secret = StoreSecret.readFile(storeSecretFile, "--store-secret-file");
        source = "--store-secret-file=" + storeSecretFile;
      } else {
        secret = StoreSecret.fromEnvironment(env);
        source =
            env.isSet(StoreSecret.SECRET_VAR)
                ? StoreSecret.SECRET_VAR
                : StoreSecret.SECRET_FILE_VAR;
      }
    } catch (ConfigException e) {
      secret = "";
      source = "invalid: " + e.getMessage();
    }
    return new DoctorJob(
        nproc,
        nnodes,
        nodeRank,
        masterAddr,
        masterPort,
        secret,
        source,
        Duration.ofMillis(Math.round(rdzvTimeoutSeconds * 1000)),
        classpath == null ? "" : classpath);
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }
}
