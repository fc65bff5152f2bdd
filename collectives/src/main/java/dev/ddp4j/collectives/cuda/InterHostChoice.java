package dev.ddp4j.collectives.cuda;

import dev.ddp4j.ConfigException;
import dev.ddp4j.Store;
import dev.ddp4j.collectives.plan.InterHost;
import dev.ddp4j.collectives.store.ExchangeCodec;
import dev.ddp4j.collectives.store.StoreExchange;
import dev.ddp4j.spi.Settings;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * How a cuda group on several hosts runs its hierarchical column between them ({@code
 * DDP4J_INTER_HOST}: {@code auto}, the default, takes NCCL where every rank loads it, else the
 * sockets; {@code nccl} and {@code socket} force one), decided once before planning and the same on
 * every rank, because the planner charges the column's hops by it.
 */
final class InterHostChoice {

  static final String VAR = "DDP4J_INTER_HOST";

  enum Setting {
    AUTO,
    NCCL,
    SOCKET
  }

  /**
   * @param via what the plan assumes and the columns try first
   * @param why one line for the INFO log
   */
  record Decision(InterHost via, String why) {}

  private InterHostChoice() {}

  /**
   * @throws ConfigException naming the value and the ones accepted
   */
  static Setting setting(Settings env) {
    return env.parsed(
            VAR,
            v -> Setting.valueOf(v.toUpperCase(Locale.ROOT)),
            "auto, nccl or socket; auto = nccl where every rank loads it")
        .orElse(Setting.AUTO);
  }

  /** What {@code topo} and a plan made without the ranks assume: NCCL unless sockets are forced. */
  static InterHost assumed(Setting s) {
    return s == Setting.SOCKET ? InterHost.SOCKET : InterHost.NCCL;
  }

  /**
   * The decision from every rank's view of NCCL.
   *
   * @param problems per rank: empty where it loads NCCL, else why it cannot
   * @throws ConfigException with {@code nccl} forced and some rank unable to load it
   */
  static Decision decide(Setting s, List<String> problems) {
    if (s == Setting.SOCKET) {
      return new Decision(InterHost.SOCKET, VAR + "=socket");
    }
    for (int r = 0; r < problems.size(); r++) {
      String p = problems.get(r);
      if (p.isEmpty()) {
        continue;
      }
      if (s == Setting.NCCL) {
        throw new ConfigException(
            VAR
                + "=nccl but rank "
                + r
                + " cannot load NCCL: "
                + p
                + " (fix: install NCCL on every host, or set "
                + VAR
                + "=auto to run the column over the sockets)");
      }
      return new Decision(
          InterHost.SOCKET, VAR + "=auto: rank " + r + " cannot load NCCL (" + p + ")");
    }
    return new Decision(
        InterHost.NCCL, VAR + "=" + s.name().toLowerCase(Locale.ROOT) + ": every rank loads NCCL");
  }

  /**
   * Every rank's view of NCCL through the store, then {@link #decide}: collective over the group
   * (nothing is exchanged with {@code socket} forced).
   *
   * @param ncclProblem this rank's: empty where NCCL loads, else why not
   */
  static Decision agree(
      Store store,
      String prefix,
      int rank,
      int size,
      Setting s,
      Supplier<Optional<String>> ncclProblem,
      Duration timeout) {
    if (s == Setting.SOCKET) {
      return decide(s, List.of());
    }
    String mine = ncclProblem.get().orElse("");
    return decide(
        s,
        new StoreExchange(store, rank, size, timeout)
            .allGather(prefix + "/interhost/", mine, ExchangeCodec.UTF8));
  }
}
