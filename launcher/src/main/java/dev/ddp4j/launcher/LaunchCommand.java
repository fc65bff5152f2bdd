package dev.ddp4j.launcher;

import dev.ddp4j.spi.Settings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The launcher's command line, torchrun's flags with torchrun's meaning. Option values are parsed
 * here; what they do lives in the launcher's other classes.
 */
@Command(
    name = "launcher.jar",
    mixinStandardHelpOptions = true,
    versionProvider = LaunchCommand.Version.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
    synopsisHeading = "",
    customSynopsis = {
      "Usage: java -jar launcher.jar [OPTIONS] (MAIN_CLASS | APP.jar) [PROGRAM_ARGS...]",
      "       java -jar launcher.jar (topo | bench | doctor) [OPTIONS]",
    },
    description = {
      "Starts one worker JVM per GPU (or per CPU worker), hosts the job's TCP store and watches the workers:",
      "if one fails, the others are stopped and the launcher exits non-zero naming the rank that failed.",
      ""
    },
    footerHeading = "%nWorker environment:%n",
    footer = {
      "  RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT,",
      "  DDP4J_RESTART_COUNT; OMP_NUM_THREADS=1 unless it is set.",
      "Exit status: 0 all workers succeeded, 1 a worker failed, 2 bad usage."
    })
public final class LaunchCommand implements Callable<Integer> {

  @Option(
      names = "--nproc-per-node",
      paramLabel = "N|gpu|cpu|auto",
      defaultValue = "auto",
      description =
          "Workers on this node: a number, one per GPU (gpu), 1 (cpu), or gpu if any else 1 (auto). Default: ${DEFAULT-VALUE}.")
  String nprocPerNode;

  @Option(
      names = "--nnodes",
      paramLabel = "N",
      defaultValue = "1",
      description = "Number of nodes (launchers) in the job. Default: ${DEFAULT-VALUE}.")
  String nnodes;

  @Option(
      names = "--node-rank",
      paramLabel = "K",
      defaultValue = "-1",
      description =
          "This node's rank, 0 <= K < nnodes; -1 assigns ranks in join order. Default: ${DEFAULT-VALUE}.")
  int nodeRank;

  @Option(
      names = "--master-addr",
      paramLabel = "HOST",
      defaultValue = "127.0.0.1",
      description = "Address of node 0, where the store runs. Default: ${DEFAULT-VALUE}.")
  String masterAddr;

  @Option(
      names = "--master-port",
      paramLabel = "PORT",
      defaultValue = "29500",
      description =
          "Port of the store on node 0; 0 picks a free port (single node only). Default: ${DEFAULT-VALUE}.")
  int masterPort;

  @Option(
      names = "--init-method",
      paramLabel = "URL",
      description =
          "tcp://HOST:PORT, file:///PATH or env:// (MASTER_ADDR/MASTER_PORT); overrides --master-addr/--master-port.")
  String initMethod;

  @Option(
      names = "--rdzv-endpoint",
      paramLabel = "HOST[:PORT]",
      description = "Same as --master-addr/--master-port, in torchrun's form.")
  String rdzvEndpoint;

  @Option(
      names = "--standalone",
      description = "Single-node job on a free local port (torchrun's --standalone).")
  boolean standalone;

  @Option(
      names = "--max-restarts",
      paramLabel = "K",
      defaultValue = "0",
      description =
          "Restart the whole group (every node's, in a multi-node job) up to K times after a failure. Default: ${DEFAULT-VALUE}.")
  int maxRestarts;

  @Option(
      names = "--monitor-interval",
      paramLabel = "SECONDS",
      defaultValue = "0.1",
      description = "How often the launcher checks its workers. Default: ${DEFAULT-VALUE}.")
  double monitorIntervalSeconds;

  @Option(
      names = "--log-dir",
      paramLabel = "DIR",
      description = "Write each rank's output to DIR/<restart>/rank<R>.{out,err}.")
  Path logDir;

  @Option(
      names = "--redirects",
      paramLabel = "0|1|2|3",
      defaultValue = "0",
      description =
          "With --log-dir: send stdout (1), stderr (2) or both (3) to files instead of the console. Default: ${DEFAULT-VALUE}.")
  String redirects;

  @Option(
      names = "--tee",
      paramLabel = "0|1|2|3",
      defaultValue = "0",
      description =
          "With --log-dir: copy stdout (1), stderr (2) or both (3) to files as well as the console. Default: ${DEFAULT-VALUE}.")
  String tee;

  @Option(
      names = "--local-ranks-filter",
      paramLabel = "R[,R...]",
      split = ",",
      description = "Show only these local ranks' output on the console. Default: all.")
  List<Integer> localRanksFilter = new ArrayList<>();

  @Option(
      names = {"--classpath", "-cp"},
      paramLabel = "PATH",
      description =
          "Where MAIN_CLASS is found (jars and folders, ':'-separated), besides the launcher's own classpath.")
  String classpath;

  @Mixin JvmArgOption jvmArgs = new JvmArgOption();

  @Option(
      names = "--store-secret-file",
      paramLabel = "PATH",
      description =
          "A file holding the job's store secret; every launcher of a multi-node job needs the same one"
              + " (or DDP4J_STORE_SECRET / DDP4J_STORE_SECRET_FILE). Single node: a random secret per job.")
  Path storeSecretFile;

  @Option(
      names = "--store-bind-all",
      description =
          "Bind the store to every interface (0.0.0.0) instead of the master address only.")
  boolean storeBindAll;

  @Option(
      names = "--rdzv-timeout",
      paramLabel = "SECONDS",
      defaultValue = "300",
      description = "How long nodes wait for each other to join. Default: ${DEFAULT-VALUE}.")
  double rdzvTimeoutSeconds;

  @Option(
      names = "--no-numa-bind",
      description =
          "Do not bind workers to their GPU's NUMA node with numactl (bound by default where known).")
  boolean noNumaBind;

  @Option(
      names = "--no-gpu-order",
      description =
          "Give local rank i GPU i instead of the GPU order the topology recommends (applied by default"
              + " through CUDA_VISIBLE_DEVICES; also DDP4J_GPU_ORDER=0).")
  boolean noGpuOrder;

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "MAIN_CLASS|APP.jar",
      description =
          "The program each worker runs: a main class (Train, or fully qualified) or a jar with a Main-Class.")
  String program;

  @Parameters(
      index = "1..*",
      paramLabel = "PROGRAM_ARGS",
      description = "Passed to the program unchanged.")
  List<String> programArgs = new ArrayList<>();

  static CommandLine commandLine() {
    return commandLine(true);
  }

  /**
   * The command model, with the topo, bench and doctor subcommands or (quicker to build) without.
   */
  static CommandLine commandLine(boolean withSubcommands) {
    CommandLine cl = new CommandLine(new LaunchCommand());
    if (withSubcommands) {
      cl.addSubcommand(new dev.ddp4j.launcher.topo.TopoCommand());
      cl.addSubcommand(new dev.ddp4j.launcher.bench.BenchCommand());
      cl.addSubcommand(new dev.ddp4j.launcher.doctor.DoctorCommand());
    }
    cl.setStopAtPositional(true);
    cl.setUnmatchedOptionsArePositionalParams(false);
    // Bad flags: one line naming the flag and the accepted forms, exit 2 (no usage dump).
    cl.setParameterExceptionHandler(
        (e, args) -> {
          e.getCommandLine().getErr().println("launcher.jar: " + e.getMessage() + " (see --help)");
          e.getCommandLine().getErr().flush();
          return 2;
        });
    cl.setExecutionExceptionHandler(
        (e, line, parsed) -> {
          // A subcommand's (topo, bench) bad value arrives as IllegalArgumentException.
          boolean subcommandInput =
              e instanceof IllegalArgumentException && line.getParent() != null;
          if (e instanceof UsageException
              || e instanceof dev.ddp4j.ConfigException
              || subcommandInput) {
            line.getErr().println("launcher.jar: " + e.getMessage());
            line.getErr().flush();
            return 2;
          }
          if (e instanceof dev.ddp4j.DdpException) {
            line.getErr().println("[launcher] job failed: " + e.getMessage());
            line.getErr().flush();
            return 1;
          }
          throw e;
        });
    return cl;
  }

  @Override
  public Integer call() {
    LaunchConfig config = LaunchConfigParser.parse(this, Settings.process());
    return new Launcher(config, System.err).run();
  }

  /** Prints the version recorded in the jar's manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = LaunchCommand.class.getPackage().getImplementationVersion();
      return new String[] {"ddp4j launcher " + (v == null ? "(development build)" : v)};
    }
  }
}
