package dev.ddp4j.collectives.nccl;

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
 * The {@code nccl} backend: {@link NcclProcessGroup} for device buffers, with a cpu group for host
 * buffers ({@link HostDeviceGroup}); available where CudaProbe finds a GPU and {@link NcclLibrary}
 * a usable libnccl.so.2. Chosen by name ({@code DDP4J_BACKEND=nccl}); {@code auto} prefers cuda,
 * whose kernels are faster inside a node.
 */
public final class NcclBackendProvider implements BackendProvider {

  /** Below cuda's (100), above cpu's (10). */
  static final int AUTO_PRIORITY = 50;

  @Override
  public String name() {
    return "nccl";
  }

  @Override
  public Optional<String> unavailableReason() {
    Optional<String> gpu = CudaProbe.unavailableReason();
    return gpu.isPresent() ? gpu : NcclLibrary.unavailableReason();
  }

  @Override
  public int autoPriority() {
    return AUTO_PRIORITY;
  }

  @Override
  public ProcessGroup create(
      WorkerEnvironment worker, Store store, Duration timeout, Settings settings) {
    return HostDeviceGroup.over(
        NcclProcessGroup.create(worker, store, timeout), worker, store, timeout, settings);
  }
}
