package dev.ddp4j;

import dev.ddp4j.spi.BackendProvider;
import dev.ddp4j.spi.Settings;
import dev.ddp4j.spi.StoreProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The one entry point: {@code ProcessGroup pg = Ddp.init();} joins the job this process was started
 * into (by {@code java -jar launcher.jar}, or by hand with RANK, WORLD_SIZE, MASTER_ADDR,
 * MASTER_PORT), picks a backend and returns its process group. See {@link InitOptions} and {@link
 * WorkerEnvironment} for what is read from the environment.
 */
public final class Ddp {

  /** The backends ddp4j's collectives module provides. */
  private static final List<String> BUILT_IN = List.of("cpu", "cuda", "nccl");

  private Ddp() {}

  /** Joins the job with options read from the environment. */
  public static ProcessGroup init() {
    return init(InitOptions.fromEnvironment());
  }

  /**
   * Joins the job: resolves this worker, connects to the store (or takes the program's own, {@link
   * InitOptions.Builder#store}, which stays open when the group closes), creates the backend's
   * process group.
   */
  public static ProcessGroup init(InitOptions options) {
    Settings settings = Settings.process();
    WorkerEnvironment worker = WorkerEnvironment.resolve(options, settings);
    BackendProvider backend = selectBackend(options.backend(), loadBackends());
    Store store =
        options
            .store()
            .<Store>map(BorrowedStore::new)
            .orElseGet(() -> connectStore(worker, options.timeout()));
    try {
      return backend.create(worker, store, options.timeout(), settings);
    } catch (RuntimeException | Error e) {
      store.close();
      throw e;
    }
  }

  /** Connects to the job's store only (for tools that need rendezvous but no collectives). */
  public static Store connectStore(WorkerEnvironment worker, Duration timeout) {
    InitMethod.Scheme scheme = worker.initMethod().scheme();
    for (StoreProvider p : ServiceLoader.load(StoreProvider.class)) {
      if (p.supports(scheme)) {
        return p.connect(worker, timeout);
      }
    }
    throw new ConfigException(
        "no store for init method "
            + worker.initMethod()
            + " on the classpath (expected: dev.ddp4j:collectives, which provides tcp:// and file:// stores)");
  }

  /**
   * The backend {@code name} selects on this machine, chosen as {@link #init(InitOptions)} chooses
   * it, for a tool that checks before it starts ranks (the launcher's bench). {@code otherChoice}
   * is the fix its error names, in the tool's own terms (init's is {@code set DDP4J_BACKEND=cpu or
   * auto}).
   *
   * @throws ConfigException naming what is missing and why each candidate cannot run
   */
  public static BackendProvider selectBackend(String name, String otherChoice) {
    return selectBackend(name, loadBackends(), otherChoice);
  }

  static List<BackendProvider> loadBackends() {
    List<BackendProvider> all = new ArrayList<>();
    ServiceLoader.load(BackendProvider.class).forEach(all::add);
    return all;
  }

  /**
   * Picks {@code name} ({@code auto}, {@code cpu}, {@code cuda}, {@code nccl}, or another
   * provider's name) among {@code providers}.
   *
   * @throws ConfigException naming what is missing and why each candidate cannot run
   */
  static BackendProvider selectBackend(String name, List<BackendProvider> providers) {
    return selectBackend(name, providers, "set " + InitOptions.BACKEND_VAR + "=cpu or auto");
  }

  private static BackendProvider selectBackend(
      String name, List<BackendProvider> providers, String otherChoice) {
    if (providers.isEmpty()) {
      throw new ConfigException(
          "no ddp4j backend on the classpath (expected: dev.ddp4j:collectives, which provides cpu, cuda and nccl)");
    }
    List<String> reasons = new ArrayList<>();
    if (name.equals("auto")) {
      List<BackendProvider> usable = new ArrayList<>();
      for (BackendProvider p : providers) {
        p.unavailableReason()
            .ifPresentOrElse(r -> reasons.add(p.name() + ": " + r), () -> usable.add(p));
      }
      return usable.stream()
          .max(Comparator.comparingInt(BackendProvider::autoPriority))
          .orElseThrow(
              () -> new ConfigException("no backend can run here: " + String.join("; ", reasons)));
    }
    for (BackendProvider p : providers) {
      if (p.name().equals(name)) {
        p.unavailableReason()
            .ifPresent(
                r -> {
                  throw new ConfigException(
                      "backend '" + name + "' cannot run here: " + r + " (" + otherChoice + ")");
                });
        return p;
      }
    }
    List<String> names = providers.stream().map(BackendProvider::name).distinct().toList();
    if (BUILT_IN.contains(name)) {
      throw new ConfigException(
          "backend '" + name + "' is not on the classpath (found: " + names + ")");
    }
    List<String> known = new ArrayList<>(List.of("auto"));
    known.addAll(names);
    throw new ConfigException(
        "backend '"
            + name
            + "' is not known (expected: "
            + String.join(", ", known.subList(0, known.size() - 1))
            + " or "
            + known.get(known.size() - 1)
            + ")");
  }
}
