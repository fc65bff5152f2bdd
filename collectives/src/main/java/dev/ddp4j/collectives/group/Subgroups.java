package dev.ddp4j.collectives.group;

import dev.ddp4j.CollectiveMismatchException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.Store;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.store.ExchangeCodec;
import dev.ddp4j.collectives.store.PrefixStore;
import dev.ddp4j.collectives.store.StoreExchange;
import dev.ddp4j.spi.CollectiveChecks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A group's subgroups, for every backend: the collective agreement on who is in each ({@code
 * newGroup}, {@code split}), and their lifetime under the group (closed before it). The backend
 * only says how a member makes its subgroup ({@link Maker}): over the {@link Membership}'s store, a
 * {@link PrefixStore} view of the group's, as a group of its own members that plans for them.
 *
 * <p>Every rank of the group publishes its request in one store round and reads every rank's, so
 * each reaches the same members or the same error without another message:
 *
 * <pre>
 *   key (under the group's prefix)   value (UTF-8)
 *   sub/&lt;n&gt;/ask/&lt;rank&gt;               "ranks 0 2 3" (newGroup) or "split &lt;color&gt; &lt;key&gt;"
 *   sub/&lt;n&gt;/g/...                     newGroup's subgroup store view
 *   sub/&lt;n&gt;/c&lt;color&gt;/...              split's subgroup store view of one color
 * </pre>
 *
 * {@code n} counts this group's subgroup calls, the same on every rank since they are collective.
 */
public final class Subgroups {

  /**
   * What a member needs to make its subgroup.
   *
   * @param rank this process's rank in the subgroup
   * @param size the subgroup's size
   * @param parentRanks the parent's rank of each subgroup rank
   * @param store the subgroup's store: a view of the parent's
   * @param name a name for the subgroup's own store keys, unique within {@code store}
   */
  public record Membership(int rank, int size, int[] parentRanks, Store store, String name) {

    /**
     * The parent's worker as a member of the subgroup. {@code LOCAL_RANK} is not known there (the
     * subgroup may leave out ranks of this node), so it is 0 of 1: backends take the GPU from the
     * parent group, never from it.
     */
    public WorkerEnvironment worker(WorkerEnvironment parent) {
      return memberWorker(parent, rank, size);
    }

    /**
     * The line a subgroup logs before its route lines, which are numbered by subgroup rank: {@code
     * subgroup sub0: rank 1/2, ranks [0, 2] of this group}.
     */
    public String describe() {
      return "subgroup "
          + name
          + ": rank "
          + rank
          + "/"
          + size
          + ", ranks "
          + Arrays.toString(parentRanks)
          + " of this group";
    }
  }

  /** {@link Membership#worker} of a member that is {@code rank} of {@code size}. */
  public static WorkerEnvironment memberWorker(WorkerEnvironment parent, int rank, int size) {
    return new WorkerEnvironment(rank, size, 0, 1, 0, parent.restartCount(), parent.initMethod());
  }

  /** Makes this rank's subgroup (collective over the subgroup's members). */
  @FunctionalInterface
  public interface Maker<G extends ProcessGroup> {
    G make(Membership m);
  }

  private final Store store;
  private final String keyPrefix;
  private final int rank;
  private final int size;
  private final Duration timeout;
  private final List<ProcessGroup> open = new ArrayList<>();
  private long calls;
  private boolean closed;

  /**
   * @param store the group's store
   * @param keyPrefix the group's own key prefix there (unique among groups over {@code store})
   */
  public Subgroups(Store store, String keyPrefix, int rank, int size, Duration timeout) {
    this.store = store;
    this.keyPrefix = keyPrefix;
    this.rank = rank;
    this.size = size;
    this.timeout = timeout;
  }

  /** {@link ProcessGroup#newGroup}: checks {@code ranks}, agrees, makes this rank's subgroup. */
  public <G extends ProcessGroup> Optional<G> newGroup(int[] ranks, Maker<G> maker) {
    CollectiveChecks.subgroupRanks("newGroup", ranks, size);
    return make(SubgroupRequest.newGroup(ranks), maker);
  }

  /** {@link ProcessGroup#split}: agrees with every rank, makes this rank's subgroup. */
  public <G extends ProcessGroup> Optional<G> split(int color, int key, Maker<G> maker) {
    return make(SubgroupRequest.split(color, key), maker);
  }

  private <G extends ProcessGroup> Optional<G> make(SubgroupRequest mine, Maker<G> maker) {
    long n;
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException(mine.call() + " on rank " + rank + ": the group is closed");
      }
      n = calls++;
    }
    String base = keyPrefix + "sub/" + n + "/";
    List<SubgroupRequest> all = agree(base, mine, n);
    if (!mine.includes(rank)) {
      return Optional.empty();
    }
    int[] members = mine.members(all);
    int index = indexOf(members, rank);
    String view = base + (mine.isSplit() ? "c" + mine.color() : "g") + "/";
    G made =
        maker.make(
            new Membership(index, members.length, members, PrefixStore.of(store, view), "sub" + n));
    synchronized (this) {
      open.add(made);
    }
    return Optional.of(made);
  }

  /** Every rank's request, once all agree (newGroup: the same ranks; no mix of the two calls). */
  private List<SubgroupRequest> agree(String base, SubgroupRequest mine, long n) {
    List<String> texts;
    try {
      texts =
          new StoreExchange(store, rank, size, timeout)
              .allGather(base + "ask/", mine.text(), ExchangeCodec.UTF8);
    } catch (DdpTimeoutException e) {
      if (e.missingRanks().isEmpty()) {
        throw e;
      }
      throw new DdpTimeoutException(
          mine.call()
              + " #"
              + n
              + " on rank "
              + rank
              + " timed out after "
              + timeout.toSeconds()
              + " s: ranks "
              + e.missingRanks()
              + " of the group never called it (every rank of the group calls newGroup and split"
              + " in the same order, members or not)",
          e.missingRanks());
    }
    List<SubgroupRequest> all = texts.stream().map(SubgroupRequest::parse).toList();
    for (int r = 0; r < size; r++) {
      SubgroupRequest other = all.get(r);
      boolean same =
          mine.isSplit()
              ? other.isSplit()
              : !other.isSplit() && Arrays.equals(other.ranks(), mine.ranks());
      if (!same) {
        throw new CollectiveMismatchException(
            mine.call()
                + " #"
                + n
                + " on rank "
                + rank
                + ", but rank "
                + r
                + " called "
                + other.call()
                + " (every rank of the group must make the same call"
                + (mine.isSplit() ? ")" : " with the same ranks in the same order)"));
      }
    }
    return all;
  }

  private static int indexOf(int[] members, int rank) {
    for (int i = 0; i < members.length; i++) {
      if (members[i] == rank) {
        return i;
      }
    }
    throw new IllegalStateException("rank " + rank + " is not in " + Arrays.toString(members));
  }

  /**
   * Closes the subgroups still open, newest first (a group closes twice as once), and refuses new
   * ones; returns what their closes threw.
   */
  public List<RuntimeException> closeAll() {
    List<ProcessGroup> toClose;
    synchronized (this) {
      closed = true;
      toClose = new ArrayList<>(open);
      open.clear();
    }
    List<RuntimeException> errors = new ArrayList<>();
    for (int i = toClose.size() - 1; i >= 0; i--) {
      try {
        toClose.get(i).close();
      } catch (RuntimeException e) {
        errors.add(e);
      }
    }
    return errors;
  }
}
