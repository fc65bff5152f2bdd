package dev.ddp4j.collectives.cpu;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.Store;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.spi.BackendProvider;
import dev.ddp4j.spi.Settings;
import java.time.Duration;
import java.util.Optional;

/**
 * The {@code cpu} backend: collectives on host memory over shared memory within a node and sockets
 * between nodes. Runs everywhere, so {@code auto} picks it when no GPU backend can run.
 */
public final class CpuBackendProvider implements BackendProvider {

  /** Below cuda's, so auto prefers a GPU where one is usable. */
  public static final int AUTO_PRIORITY = 10;

  @Override
  public String name() {
    return "cpu";
  }

  @Override
  public Optional<String> unavailableReason() {
    return Optional.empty();
  }

  @Override
  public int autoPriority() {
    return AUTO_PRIORITY;
  }

  @Override
  public ProcessGroup create(
      WorkerEnvironment worker, Store store, Duration timeout, Settings settings) {
    return CpuProcessGroup.create(worker, store, timeout, CpuGroupOptions.from(settings))
        .closingStore();
  }
}
