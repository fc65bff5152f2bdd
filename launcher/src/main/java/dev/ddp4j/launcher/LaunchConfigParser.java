package dev.ddp4j.launcher;

import dev.ddp4j.ConfigException;
import dev.ddp4j.InitMethod;
import dev.ddp4j.collectives.store.StoreSecret;
import dev.ddp4j.collectives.topology.CudaProbe;
import dev.ddp4j.spi.Settings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Checks {@link LaunchCommand}'s flags and turns them into a {@link LaunchConfig}; every problem is
 * a {@link UsageException} naming the flag and the accepted forms (exit 2).
 */
final class LaunchConfigParser {

  private LaunchConfigParser() {}

  static LaunchConfig parse(LaunchCommand f, Settings env) {
    SlurmJob.from(env).ifPresent(job -> job.applyTo(f));
    int nnodes =
        parseInt(
            "--nnodes",
            f.nnodes,
            "a whole number >= 1, e.g. 2 (elastic ranges like 1:4 are not supported)");
    if (nnodes < 1) {
      throw new UsageException(
          "--nnodes=" + f.nnodes + " is not accepted (expected: a whole number >= 1)");
    }
    if (f.nodeRank < -1 || f.nodeRank >= nnodes) {
      throw new UsageException(
          "--node-rank="
              + f.nodeRank
              + " is outside the job (expected: -1 for join order, or 0 to "
              + (nnodes - 1)
              + ")");
    }
    StoreAddress init = storeAddress(f, env, nnodes);
    List<CudaProbe.Gpu> gpus = List.of();
    int nproc;
    String n = f.nprocPerNode.trim().toLowerCase(Locale.ROOT);
    switch (n) {
      case "cpu":
        nproc = 1;
        break;
      case "gpu":
      case "auto":
        {
          Optional<String> why = CudaProbe.unavailableReason();
          if (why.isPresent()) {
            if (n.equals("gpu")) {
              throw new UsageException(
                  "--nproc-per-node=gpu but this machine has no usable GPU: "
                      + why.get()
                      + " (expected: a number, cpu or auto)");
            }
            nproc = 1;
          } else {
            gpus = CudaProbe.gpus();
            nproc = gpus.size();
          }
          break;
        }
      default:
        nproc = parseInt("--nproc-per-node", f.nprocPerNode, "a number >= 1, gpu, cpu or auto");
        if (nproc < 1) {
          throw new UsageException(
              "--nproc-per-node="
                  + f.nprocPerNode
                  + " is not accepted (expected: a number >= 1, gpu, cpu or auto)");
        }
        // GPUs for the order and NUMA binding of a given count (the device-node check keeps CPU
        // machines from loading CUDA).
        if (CudaProbe.unavailableReason().isEmpty()) {
          gpus = CudaProbe.gpus();
        }
    }
    if (f.maxRestarts < 0) {
      throw new UsageException(
          "--max-restarts=" + f.maxRestarts + " is not accepted (expected: 0 or more)");
    }
    if (!(f.monitorIntervalSeconds > 0) || f.monitorIntervalSeconds > 60) {
      throw new UsageException(
          "--monitor-interval="
              + f.monitorIntervalSeconds
              + " is not accepted (expected: seconds, > 0 and <= 60, e.g. 0.1)");
    }
    OutputMode output =
        new OutputMode(
            OutputMode.parseStreams("--redirects", f.redirects),
            OutputMode.parseStreams("--tee", f.tee));
    if (f.logDir == null && (output.redirects() != 0 || output.tee() != 0)) {
      throw new UsageException(
          "--redirects/--tee need --log-dir (expected: --log-dir=DIR with --redirects=0..3 or --tee=0..3)");
    }
    Set<Integer> filter = new LinkedHashSet<>();
    for (Integer r : f.localRanksFilter) {
      if (r == null || r < 0 || r >= nproc) {
        throw new UsageException(
            "--local-ranks-filter names local rank "
                + r
                + " (expected: ranks 0 to "
                + (nproc - 1)
                + ", comma-separated)");
      }
      filter.add(r);
    }
    if (f.rdzvTimeoutSeconds <= 0) {
      throw new UsageException(
          "--rdzv-timeout="
              + f.rdzvTimeoutSeconds
              + " is not accepted (expected: seconds > 0, e.g. 300)");
    }
    String secret = secret(f, env, nnodes);
    ProgramResolver.Program program =
        ProgramResolver.resolve(f.program, f.classpath, System.getProperty("java.class.path"));
    GpuPlacement placement = GpuPlacement.choose(nproc, f.noGpuOrder, env, !gpus.isEmpty());
    int[] numa = new int[nproc];
    for (int i = 0; i < nproc; i++) {
      // The NUMA node of the GPU this rank gets, after any reordering.
      int gpu = placement.ordinals() == null ? i : placement.ordinals()[i];
      numa[i] =
          !f.noNumaBind && gpu < gpus.size()
              ? NumaBinding.numaNodeOf(Path.of("/sys"), gpus.get(gpu).pciBusId())
              : -1;
    }
    return new LaunchConfig(
        nproc,
        nnodes,
        f.nodeRank,
        init,
        f.storeBindAll,
        secret,
        f.maxRestarts,
        Duration.ofMillis(Math.max(1, Math.round(f.monitorIntervalSeconds * 1000))),
        f.logDir == null ? null : f.logDir.toAbsolutePath(),
        output,
        Set.copyOf(filter),
        program,
        List.copyOf(f.programArgs),
        f.jvmArgs.values(),
        numa,
        Duration.ofMillis(Math.round(f.rdzvTimeoutSeconds * 1000)),
        placement);
  }

  private static StoreAddress storeAddress(LaunchCommand f, Settings env, int nnodes) {
    if (f.standalone) {
      if (nnodes > 1) {
        throw new UsageException(
            "--standalone is for one node, but --nnodes="
                + nnodes
                + " (expected: drop one of them)");
      }
      return StoreAddress.tcp("127.0.0.1", 0);
    }
    StoreAddress m;
    if (f.initMethod != null) {
      InitMethod parsed;
      try {
        parsed = InitMethod.parse(f.initMethod);
      } catch (ConfigException e) {
        throw new UsageException("--init-method: " + e.getMessage());
      }
      if (parsed.scheme() == InitMethod.Scheme.FILE) {
        m = StoreAddress.file(parsed.path());
      } else if (parsed.scheme() == InitMethod.Scheme.TCP) {
        m = StoreAddress.tcp(parsed.host(), parsed.port());
      } else {
        String addr = env.text("MASTER_ADDR", null);
        String port = env.text("MASTER_PORT", null);
        if (addr == null || port == null) {
          throw new UsageException(
              "--init-method=env:// needs MASTER_ADDR and MASTER_PORT in the launcher's environment (expected: set both, or use tcp://HOST:PORT)");
        }
        m =
            tcp(
                "MASTER_ADDR/MASTER_PORT",
                addr,
                parseInt("MASTER_PORT", port, "a port, 1 to 65535"));
      }
    } else if (f.rdzvEndpoint != null) {
      String ep = f.rdzvEndpoint.trim();
      int colon = ep.lastIndexOf(':');
      String host = colon < 0 ? ep : ep.substring(0, colon);
      int port =
          colon < 0
              ? 29400
              : parseInt(
                  "--rdzv-endpoint", ep.substring(colon + 1), "HOST[:PORT], e.g. node0:29400");
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      m = tcp("--rdzv-endpoint", host, port);
    } else {
      if (f.masterPort < 0 || f.masterPort > 65535) {
        throw new UsageException(
            "--master-port="
                + f.masterPort
                + " is out of range (expected: 1 to 65535, or 0 for a free port on one node)");
      }
      m =
          f.masterPort == 0
              ? StoreAddress.tcp(f.masterAddr, 0)
              : tcp("--master-addr/--master-port", f.masterAddr, f.masterPort);
    }
    if (!m.isFile() && m.port() == 0 && nnodes > 1) {
      throw new UsageException(
          "--master-port=0 picks a port only one node knows, but --nnodes="
              + nnodes
              + " (expected: a fixed port, e.g. 29500)");
    }
    return m;
  }

  private static StoreAddress tcp(String flag, String host, int port) {
    if (host == null || host.isBlank() || port < 1 || port > 65535) {
      throw new UsageException(
          flag
              + " gives "
              + host
              + ":"
              + port
              + " (expected: a host and a port 1 to 65535, e.g. 10.0.0.5:29500)");
    }
    return StoreAddress.tcp(host, port);
  }

  private static String secret(LaunchCommand f, Settings env, int nnodes) {
    if (f.storeSecretFile != null) {
      try {
        return StoreSecret.readFile(f.storeSecretFile, "--store-secret-file");
      } catch (ConfigException e) {
        throw new UsageException(e.getMessage());
      }
    }
    String fromEnv;
    try {
      fromEnv = StoreSecret.fromEnvironment(env);
    } catch (ConfigException e) {
      throw new UsageException(e.getMessage());
    }
    if (!fromEnv.isEmpty()) {
      return fromEnv;
    }
    if (nnodes > 1) {
      throw new UsageException(
          "a "
              + nnodes
              + "-node job needs a secret every launcher shares (expected: --store-secret-file=PATH, or "
              + StoreSecret.SECRET_VAR
              + " or "
              + StoreSecret.SECRET_FILE_VAR
              + " set for every launcher)");
    }
    return StoreSecret.random();
  }

  private static int parseInt(String flag, String value, String expected) {
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new UsageException(
          flag + "=" + value + " is not accepted (expected: " + expected + ")");
    }
  }
}
