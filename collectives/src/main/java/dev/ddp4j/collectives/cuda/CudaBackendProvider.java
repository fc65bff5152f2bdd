package dev.ddp4j.collectives.cuda;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.Store;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.gpu.HostDeviceGroup;
import dev.ddp4j.collectives.topology.CudaProbe;
import dev.ddp4j.spi.BackendProvider;
import dev.ddp4j.spi.Settings;
import java.time.Duration;
import java.util.Optional;

/**
 * The {@code cuda} backend: {@link CudaProcessGroup} for device buffers, with a cpu group for host
 * buffers ({@link HostDeviceGroup}); available where CudaProbe finds a GPU.
 */
public final class CudaBackendProvider implements BackendProvider {

  /** Above the cpu backend's, so {@code auto} picks cuda wherever a GPU is usable. */
  static final int AUTO_PRIORITY = 100;

  @Override
  public String name() {
    return "cuda";
  }

  @Override
  public Optional<String> unavailableReason() {
    return CudaProbe.unavailableReason();
  }

  @Override
  public int autoPriority() {
    return AUTO_PRIORITY;
  }

  @Override
  public ProcessGroup create(
      WorkerEnvironment worker, Store store, Duration timeout, Settings settings) {
    return HostDeviceGroup.over(
        CudaProcessGroup.create(worker, store, timeout, settings),
        worker,
        store,
        timeout,
        settings);
  }
}
