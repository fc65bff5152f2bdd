package dev.ddp4j.spi;

import dev.ddp4j.TensorBuffer;

/**
 * The local argument checks every backend makes before it starts a collective, with messages that
 * name the values and the rule. (Cross-rank agreement is the backend's own check.)
 */
public final class CollectiveChecks {

  private CollectiveChecks() {}

  /** Out-of-place all-reduce: same dtype and count. */
  public static void sameShape(String op, TensorBuffer input, TensorBuffer output) {
    if (input.dataType() != output.dataType() || input.count() != output.count()) {
      throw new IllegalArgumentException(
          op
              + ": input is "
              + input.count()
              + " "
              + input.dataType()
              + " but output is "
              + output.count()
              + " "
              + output.dataType()
              + " (expected: the same count and dtype)");
    }
  }

  /** All-gather: output holds {@code size} inputs. */
  public static void gathered(String op, TensorBuffer part, TensorBuffer whole, int size) {
    if (part.dataType() != whole.dataType()) {
      throw new IllegalArgumentException(
          op
              + ": dtypes differ, "
              + part.dataType()
              + " and "
              + whole.dataType()
              + " (expected: the same dtype)");
    }
    if (whole.count() != part.count() * (long) size) {
      throw new IllegalArgumentException(
          op
              + ": the whole buffer has "
              + whole.count()
              + " elements but the per-rank part has "
              + part.count()
              + " (expected: whole = part x "
              + size
              + " ranks = "
              + part.count() * (long) size
              + ")");
    }
  }

  /** Broadcast and other rooted collectives: {@code 0 <= root < size}. */
  public static void root(String op, int root, int size) {
    if (root < 0 || root >= size) {
      throw new IllegalArgumentException(
          op + ": root " + root + " is not a rank (expected: 0 <= root < " + size + ")");
    }
  }

  /**
   * A subgroup's ranks: at least one, each a rank of the group ({@code 0 <= r < size}), none twice.
   *
   * @param op what takes them ({@code newGroup}, {@code --ranks}), for the message
   */
  public static void subgroupRanks(String op, int[] ranks, int size) {
    if (ranks == null || ranks.length == 0) {
      throw new IllegalArgumentException(
          op + ": no ranks given (expected: 1 to " + size + " distinct ranks of the group)");
    }
    boolean[] seen = new boolean[size];
    for (int r : ranks) {
      if (r < 0 || r >= size) {
        throw new IllegalArgumentException(
            op
                + ": rank "
                + r
                + " in "
                + java.util.Arrays.toString(ranks)
                + " is not a rank of the group (expected: 0 <= rank < "
                + size
                + ")");
      }
      if (seen[r]) {
        throw new IllegalArgumentException(
            op
                + ": rank "
                + r
                + " appears twice in "
                + java.util.Arrays.toString(ranks)
                + " (expected: distinct ranks)");
      }
      seen[r] = true;
    }
  }

  /** Point-to-point: {@code peer} is another rank of the group. */
  public static void peer(String op, int peer, int rank, int size) {
    if (peer < 0 || peer >= size || peer == rank) {
      throw new IllegalArgumentException(
          op
              + ": peer "
              + peer
              + " (expected: another rank, 0 <= peer < "
              + size
              + ", not "
              + rank
              + ")");
    }
  }

  /** Gather: a valid root; on root, output holds {@code size} inputs (elsewhere it is not read). */
  public static void gather(TensorBuffer input, TensorBuffer output, int root, int rank, int size) {
    root("gather", root, size);
    if (rank == root) {
      gathered("gather", input, output, size);
    }
  }

  /**
   * Scatter: a valid root; on root, input holds {@code size} outputs (elsewhere it is not read).
   */
  public static void scatter(
      TensorBuffer input, TensorBuffer output, int root, int rank, int size) {
    root("scatter", root, size);
    if (rank == root) {
      gathered("scatter", output, input, size);
    }
  }

  /** All-to-all: input and output of one shape, whose count splits into {@code size} blocks. */
  public static void allToAll(TensorBuffer input, TensorBuffer output, int size) {
    sameShape("allToAll", input, output);
    if (input.count() % size != 0) {
      throw new IllegalArgumentException(
          "allToAll: "
              + input.count()
              + " elements do not split into "
              + size
              + " blocks (expected: count divisible by the group's size)");
    }
  }
}
