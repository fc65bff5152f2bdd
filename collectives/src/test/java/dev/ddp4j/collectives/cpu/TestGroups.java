package dev.ddp4j.collectives.cpu;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.Store;
import dev.ddp4j.WorkerEnvironment;
import java.time.Duration;
import java.util.Map;

/** Test access to {@link CpuProcessGroup#create} with an explicit environment. */
public final class TestGroups {
  private TestGroups() {}

  public static ProcessGroup create(
      WorkerEnvironment w, Store store, Duration timeout, Map<String, String> env) {
    return CpuProcessGroup.create(
        w, store, timeout, CpuGroupOptions.from(dev.ddp4j.spi.Settings.of(env)), "test");
  }
}
