package dev.ddp4j.spi;

import dev.ddp4j.InitMethod;
import dev.ddp4j.Store;
import dev.ddp4j.WorkerEnvironment;
import java.time.Duration;

/**
 * Connects a worker to its job's store for one kind of {@link InitMethod}. Implementations are
 * found with {@link java.util.ServiceLoader} ({@code
 * META-INF/services/dev.ddp4j.spi.StoreProvider}); the {@code collectives} module provides the TCP
 * and file stores.
 */
public interface StoreProvider {

  /** True if this provider connects to stores of {@code scheme}. */
  boolean supports(InitMethod.Scheme scheme);

  /**
   * Connects to the store {@code worker.initMethod()} names, retrying until {@code timeout} passes.
   *
   * @throws dev.ddp4j.DdpTimeoutException naming the address when the store cannot be reached in
   *     time
   */
  Store connect(WorkerEnvironment worker, Duration timeout);
}
