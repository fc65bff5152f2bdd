package dev.ddp4j.launcher;

import dev.ddp4j.InitMethod;
import dev.ddp4j.InitOptions;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.store.StoreSecret;
import dev.ddp4j.spi.Settings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The command line and environment of one worker JVM. */
public final class WorkerCommand {

  static final String OMP_NUM_THREADS = "OMP_NUM_THREADS";

  /**
   * Options every worker JVM gets before the user's: the Vector API (incubating in Java 17), with
   * which the cpu backend reduces float32 / float64 on native memory about 3x faster than its
   * scalar loops. The JVM prints one "Using incubator modules" warning per worker for it. Empty
   * where the runtime lacks the module (a jlinked image) or is Java 20+, whose Vector API the
   * kernels do not use, and under {@code DDP4J_CPU_VECTOR=0}, which wants the scalar loops anyway
   * (and so silences the warning).
   */
  public static final List<String> WORKER_JVM_OPTIONS =
      workerJvmOptions(
          Settings.process(),
          Runtime.version().feature(),
          java.lang.module.ModuleFinder.ofSystem().find("jdk.incubator.vector").isPresent());

  /** {@link #WORKER_JVM_OPTIONS} for this environment, Java feature release and module finding. */
  static List<String> workerJvmOptions(Settings env, int javaFeature, boolean hasVectorModule) {
    return !env.text("DDP4J_CPU_VECTOR", "1").equals("0") && javaFeature < 20 && hasVectorModule
        ? List.of("--add-modules", "jdk.incubator.vector")
        : List.of();
  }

  private WorkerCommand() {}

  /** The launcher's own java, so workers run the JVM the user chose to run the launcher with. */
  static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  static List<String> argv(LaunchConfig c, WorkerSpec s, Optional<Path> numactl) {
    int node = c.numaNodes().length > s.localRank() ? c.numaNodes()[s.localRank()] : -1;
    return argv(
        NumaBinding.prefix(node, numactl),
        c.jvmArgs(),
        c.program().classpathString(),
        c.program().mainClass(),
        c.programArgs());
  }

  /**
   * A worker JVM's command line: {@code prefix} (numactl), the launcher's java, {@link
   * #WORKER_JVM_OPTIONS}, {@code jvmArgs}, the class path, and {@link WorkerBootstrap} running
   * {@code mainClass} with {@code args}.
   */
  public static List<String> argv(
      List<String> prefix,
      List<String> jvmArgs,
      String classpath,
      String mainClass,
      List<String> args) {
    List<String> cmd = new ArrayList<>(prefix);
    cmd.add(javaBinary());
    cmd.addAll(WORKER_JVM_OPTIONS);
    cmd.addAll(jvmArgs);
    cmd.add("-cp");
    cmd.add(classpath);
    cmd.add(WorkerBootstrap.class.getName());
    cmd.add(mainClass);
    cmd.addAll(args);
    return cmd;
  }

  /**
   * The worker variables of {@link #environment(Map, WorkerSpec, InitMethod, String)}, plus the GPU
   * placement ({@code CUDA_VISIBLE_DEVICES}) where the launcher chose one.
   */
  static void environment(Map<String, String> env, LaunchConfig c, WorkerSpec s, InitMethod store) {
    environment(env, s, store, c.secret());
    if (c.gpus() != null && c.gpus().cudaVisibleDevices() != null) {
      env.put(GpuPlacement.CUDA_VISIBLE_DEVICES, c.gpus().cudaVisibleDevices());
    }
  }

  /**
   * Sets the worker variables in {@code env} (the parent's environment, inherited): ranks, the
   * store's address and secret, the restart count, this JVM's pid for the watchdog, and
   * OMP_NUM_THREADS=1 when the user set none. Unlike torchrun, which sets it only when several
   * workers share a node, ddp4j sets it for a lone worker too: ND4J's OpenMP pool costs more than
   * it gives on the small per-op work of a data-parallel step (Train on 2 cores, 1 worker: 2,789
   * examples/s with the default pool, 11,048 with one thread).
   */
  public static void environment(
      Map<String, String> env, WorkerSpec s, InitMethod store, String secret) {
    env.put(WorkerEnvironment.RANK, Integer.toString(s.rank()));
    env.put(WorkerEnvironment.LOCAL_RANK, Integer.toString(s.localRank()));
    env.put(WorkerEnvironment.WORLD_SIZE, Integer.toString(s.worldSize()));
    env.put(WorkerEnvironment.LOCAL_WORLD_SIZE, Integer.toString(s.localWorldSize()));
    env.put(WorkerEnvironment.GROUP_RANK, Integer.toString(s.groupRank()));
    env.put(WorkerEnvironment.RESTART_COUNT, Integer.toString(s.restartCount()));
    if (store.scheme() == InitMethod.Scheme.TCP) {
      env.put(WorkerEnvironment.MASTER_ADDR, store.host());
      env.put(WorkerEnvironment.MASTER_PORT, Integer.toString(store.port()));
      env.put(InitOptions.INIT_METHOD_VAR, "env://");
    } else {
      env.put(InitOptions.INIT_METHOD_VAR, store.toString());
    }
    env.put(StoreSecret.SECRET_VAR, secret);
    env.remove(StoreSecret.SECRET_FILE_VAR);
    env.put(ParentWatchdog.LAUNCHER_PID_VAR, Long.toString(ProcessHandle.current().pid()));
    if (!env.containsKey(OMP_NUM_THREADS)) {
      env.put(OMP_NUM_THREADS, "1");
    }
  }
}
