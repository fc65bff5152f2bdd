package dev.ddp4j.spi;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.Store;
import dev.ddp4j.WorkerEnvironment;
import java.time.Duration;
import java.util.Optional;

/**
 * Makes {@link ProcessGroup}s of one backend ({@code cpu}, {@code cuda}, {@code nccl}). Found with
 * {@link java.util.ServiceLoader} ({@code META-INF/services/dev.ddp4j.spi.BackendProvider}).
 */
public interface BackendProvider {

  /** The backend's name as users select it: {@code cpu}, {@code cuda} or {@code nccl}. */
  String name();

  /**
   * Empty if this backend can run in this process; otherwise why not, in words a user can act on
   * (e.g. {@code no CUDA driver: libcuda.so.1 not found}).
   */
  Optional<String> unavailableReason();

  /**
   * Among available backends, {@code auto} picks the one with the highest priority (cuda above
   * cpu).
   */
  int autoPriority();

  /**
   * Joins the group: every rank calls this with the same world size and a store they share.
   * Collective in nature: it returns once all ranks have joined, or fails after {@code timeout}
   * naming the missing ranks. {@code settings} are the process's ddp4j variables, read once by
   * {@link dev.ddp4j.Ddp#init}; the backend reads its options from them. The group owns {@code
   * store} and closes it last when it closes ({@code Ddp.init} hands a program's own store through
   * a view whose close leaves it open).
   */
  ProcessGroup create(WorkerEnvironment worker, Store store, Duration timeout, Settings settings);
}
