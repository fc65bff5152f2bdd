package dev.ddp4j.collectives.nccl;

import dev.ddp4j.Store;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.gpu.DeviceBackendProvider;
import dev.ddp4j.collectives.gpu.DeviceGroup;
import dev.ddp4j.collectives.gpu.HostDeviceGroup;
import dev.ddp4j.spi.Settings;
import java.time.Duration;
import java.util.Optional;

/**
 * The {@code nccl} backend: {@link NcclProcessGroup} for device buffers, with a cpu group for host
 * buffers ({@link HostDeviceGroup}); available where CudaProbe finds a GPU and {@link NcclLibrary}
 * a usable libnccl.so.2. Chosen by name ({@code DDP4J_BACKEND=nccl}); {@code auto} prefers cuda,
 * whose kernels are faster inside a node.
 */
public final class NcclBackendProvider extends DeviceBackendProvider {

  /** Below cuda's (100), above cpu's (10). */
  static final int AUTO_PRIORITY = 50;

  public NcclBackendProvider() {
    super("nccl", AUTO_PRIORITY);
  }

  @Override
  protected Optional<String> beyondGpuUnavailableReason() {
    return NcclLibrary.unavailableReason();
  }

  @Override
  protected DeviceGroup createDevice(
      WorkerEnvironment worker, Store store, Duration timeout, Settings settings) {
    return NcclProcessGroup.create(worker, store, timeout);
  }
}
