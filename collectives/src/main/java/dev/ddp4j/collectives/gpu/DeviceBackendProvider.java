package dev.ddp4j.collectives.gpu;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.Store;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.topology.CudaProbe;
import dev.ddp4j.spi.BackendProvider;
import dev.ddp4j.spi.Settings;
import java.time.Duration;
import java.util.Optional;

/**
 * A GPU backend ({@code cuda}, {@code nccl}): available where CudaProbe finds a GPU (and what else
 * the backend needs), its groups a device group for device buffers with a cpu group for host
 * buffers ({@link HostDeviceGroup}).
 */
public abstract class DeviceBackendProvider implements BackendProvider {

  private final String name;
  private final int autoPriority;

  protected DeviceBackendProvider(String name, int autoPriority) {
    this.name = name;
    this.autoPriority = autoPriority;
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final Optional<String> unavailableReason() {
    Optional<String> gpu = CudaProbe.unavailableReason();
    return gpu.isPresent() ? gpu : beyondGpuUnavailableReason();
  }

  /**
   * Why the backend cannot run on a machine with a usable GPU (a library missing); default none.
   */
  protected Optional<String> beyondGpuUnavailableReason() {
    return Optional.empty();
  }

  @Override
  public final int autoPriority() {
    return autoPriority;
  }

  @Override
  public final ProcessGroup create(
      WorkerEnvironment worker, Store store, Duration timeout, Settings settings) {
    return HostDeviceGroup.over(
            createDevice(worker, store, timeout, settings), worker, store, timeout, settings)
        .closingStore(store);
  }

  /** The device half of a new group (collective, as {@link #create}). */
  protected abstract DeviceGroup createDevice(
      WorkerEnvironment worker, Store store, Duration timeout, Settings settings);
}
