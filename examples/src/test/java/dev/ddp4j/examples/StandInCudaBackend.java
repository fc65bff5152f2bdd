package dev.ddp4j.examples;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.Store;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.gpu.HostDeviceGroup;
import dev.ddp4j.spi.BackendProvider;
import dev.ddp4j.testing.StandInDeviceGroup;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code DDP4J_BACKEND=standin-cuda} (tests only): the group a GPU machine's {@code Ddp.init()}
 * returns, {@link HostDeviceGroup} with its real host half, around a device half stood in for the
 * GPU CI lacks. It answers {@code backend()} with {@code cuda}, so DdpModel decides as on a GPU
 * host; anything sent to the device half fails at once. Never chosen by {@code auto}.
 */
public final class StandInCudaBackend implements BackendProvider {

  @Override
  public String name() {
    return "standin-cuda";
  }

  @Override
  public Optional<String> unavailableReason() {
    return Optional.empty();
  }

  @Override
  public int autoPriority() {
    return 0; // below cpu's
  }

  @Override
  public ProcessGroup create(
      WorkerEnvironment worker, Store store, Duration timeout, dev.ddp4j.spi.Settings settings) {
    return HostDeviceGroup.over(
        new StandInDeviceGroup(worker, store, timeout), worker, store, timeout, settings);
  }
}
