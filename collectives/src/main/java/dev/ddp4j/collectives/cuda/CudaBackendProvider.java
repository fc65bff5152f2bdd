package dev.ddp4j.collectives.cuda;

import dev.ddp4j.Store;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.gpu.DeviceBackendProvider;
import dev.ddp4j.collectives.gpu.DeviceGroup;
import dev.ddp4j.collectives.gpu.HostDeviceGroup;
import dev.ddp4j.spi.Settings;
import java.time.Duration;

/**
 * The {@code cuda} backend: {@link CudaProcessGroup} for device buffers, with a cpu group for host
 * buffers ({@link HostDeviceGroup}); available where CudaProbe finds a GPU.
 */
public final class CudaBackendProvider extends DeviceBackendProvider {

  /** Above the cpu backend's, so {@code auto} picks cuda wherever a GPU is usable. */
  static final int AUTO_PRIORITY = 100;

  public CudaBackendProvider() {
    super("cuda", AUTO_PRIORITY);
  }

  @Override
  protected DeviceGroup createDevice(
      WorkerEnvironment worker, Store store, Duration timeout, Settings settings) {
    return CudaProcessGroup.create(worker, store, timeout, settings);
  }
}
