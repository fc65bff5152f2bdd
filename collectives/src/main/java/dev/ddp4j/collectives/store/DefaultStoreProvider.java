package dev.ddp4j.collectives.store;

import dev.ddp4j.InitMethod;
import dev.ddp4j.Store;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.spi.Settings;
import dev.ddp4j.spi.StoreProvider;
import java.time.Duration;

/**
 * Provides the {@code tcp://} store ({@link TcpStoreClient}, with the secret from {@link
 * StoreSecret#fromEnvironment}) and the {@code file://} store ({@link FileStore}). {@code env://}
 * arrives here already resolved to {@code tcp://} by {@link WorkerEnvironment#resolve}.
 */
public final class DefaultStoreProvider implements StoreProvider {

  @Override
  public boolean supports(InitMethod.Scheme scheme) {
    return scheme == InitMethod.Scheme.TCP || scheme == InitMethod.Scheme.FILE;
  }

  @Override
  public Store connect(WorkerEnvironment worker, Duration timeout) {
    InitMethod m = worker.initMethod();
    if (m.scheme() == InitMethod.Scheme.FILE) {
      return FileStore.open(m.path(), timeout);
    }
    return TcpStoreClient.connect(
        m.host(), m.port(), StoreSecret.fromEnvironment(Settings.process()), timeout);
  }
}
