package dev.ddp4j.collectives.nccl;

import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.cuda.harness.LocalRanks;
import dev.ddp4j.collectives.store.FileStore;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Set;

/**
 * One process of the nccl CI tests, started by LocalRanks: {@code probe} loads the library and
 * prints {@code loaded VERSION PATH} or {@code unavailable: REASON}; {@code join} runs the unique
 * id exchange through the ranks' store and, unless this rank is in {@code NCCL_TEST_SKIP_JOIN}
 * (comma-separated), the communicator set-up, printing {@code id HEX}, {@code joined} or {@code
 * error CLASS: MESSAGE} (with {@code missing [..]} for timeouts). Exits 0 either way once it
 * printed.
 */
public final class NcclTestMain {

  private NcclTestMain() {}

  /**
   * {@code column}: ranks 2h and 2h+1 sit on host h; the ranks at one position of every host make
   * one sub-communicator through {@link NcclSubGroups} (a cuda group's hierarchical column), and
   * print {@code column C member M of N ready} or {@code column C failed: MESSAGE}.
   */
  private static void column() {
    WorkerEnvironment w = LocalRanks.worker();
    Duration timeout =
        Duration.ofSeconds(Long.parseLong(System.getenv().getOrDefault("NCCL_TEST_TIMEOUT", "60")));
    int column = w.rank() % 2;
    int member = w.rank() / 2;
    int members = w.worldSize() / 2;
    String prefix = "ddp4j/cuda/test/column" + column + "/nccl";
    try (FileStore store = LocalRanks.store(timeout)) {
      NcclComm comm =
          NcclSubGroups.join(
              store,
              prefix,
              member,
              members,
              timeout,
              gaveUp -> {
                byte[] id =
                    NcclIdExchange.agree(
                        store,
                        prefix + "/id",
                        member,
                        timeout,
                        () -> NcclLibrary.load().uniqueId());
                NcclPeers peers = new NcclPeers(store, prefix, member, members);
                return NcclProcessGroup.join(
                    NcclLibrary.load(), peers, members, id, member, timeout, gaveUp);
              },
              NcclComm::abort);
      System.out.println("column " + column + " member " + member + " of " + members + " ready");
      comm.finalizeAndDestroy(System.nanoTime() + 1_000_000_000L);
    } catch (RuntimeException e) {
      System.out.println("column " + column + " failed: " + e.getMessage());
    }
  }

  public static void main(String[] args) {
    if (args[0].equals("probe")) {
      try {
        NcclLibrary lib = NcclLibrary.load();
        System.out.println("loaded " + lib.version() + " " + lib.path());
      } catch (RuntimeException e) {
        System.out.println("unavailable: " + e.getMessage());
      }
      return;
    }
    if (args[0].equals("column")) {
      column();
      return;
    }
    WorkerEnvironment w = LocalRanks.worker();
    Duration timeout =
        Duration.ofSeconds(Long.parseLong(System.getenv().getOrDefault("NCCL_TEST_TIMEOUT", "60")));
    String skip = System.getenv().getOrDefault("NCCL_TEST_SKIP_JOIN", "");
    try (FileStore store = LocalRanks.store(timeout)) {
      String prefix = "ddp4j/nccl/test";
      byte[] id =
          NcclIdExchange.agree(
              store, prefix + "/id", w.rank(), timeout, () -> NcclLibrary.load().uniqueId());
      System.out.println("id " + HexFormat.of().formatHex(id));
      if (!Set.of(skip.split(",")).contains(Integer.toString(w.rank()))) {
        NcclPeers peers = new NcclPeers(store, prefix, w.rank(), w.worldSize());
        NcclComm comm =
            NcclProcessGroup.join(
                NcclLibrary.load(), peers, w.worldSize(), id, w.rank(), timeout, () -> false);
        System.out.println("joined");
        System.out.println(
            "finalized " + comm.finalizeAndDestroy(System.nanoTime() + 1_000_000_000L));
      }
    } catch (DdpTimeoutException e) {
      System.out.println("error " + e.getClass().getSimpleName() + ": " + e.getMessage());
      System.out.println("missing " + e.missingRanks());
    } catch (RuntimeException e) {
      System.out.println("error " + e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }
}
