package dev.ddp4j.collectives.group;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * What one rank asked for when its group made a subgroup: {@code newGroup(ranks)} or {@code
 * split(color, key)}. Published as one line of text ({@link #text()}), so every rank reads every
 * rank's request and all of them reach the same members, or the same mismatch, without another
 * round.
 */
record SubgroupRequest(int[] ranks, int color, int key) {

  static SubgroupRequest newGroup(int[] ranks) {
    return new SubgroupRequest(ranks.clone(), 0, 0);
  }

  static SubgroupRequest split(int color, int key) {
    return new SubgroupRequest(null, color, key);
  }

  boolean isSplit() {
    return ranks == null;
  }

  /** The wire form: {@code ranks 0 2 3} or {@code split 1 0}. */
  String text() {
    if (isSplit()) {
      return "split " + color + " " + key;
    }
    StringBuilder b = new StringBuilder("ranks");
    for (int r : ranks) {
      b.append(' ').append(r);
    }
    return b.toString();
  }

  static SubgroupRequest parse(String text) {
    String[] f = text.trim().split(" ");
    if (f[0].equals("split")) {
      return split(Integer.parseInt(f[1]), Integer.parseInt(f[2]));
    }
    return newGroup(Arrays.stream(f, 1, f.length).mapToInt(Integer::parseInt).toArray());
  }

  /** As a call: {@code newGroup([0, 2])} or {@code split(color 1, key 0)}. */
  String call() {
    return isSplit()
        ? "split(color " + color + ", key " + key + ")"
        : "newGroup(" + Arrays.toString(ranks) + ")";
  }

  /** Whether this rank ({@code rank}) is a member of the group this request names. */
  boolean includes(int rank) {
    return isSplit() ? color >= 0 : Arrays.stream(ranks).anyMatch(r -> r == rank);
  }

  /**
   * The members in their subgroup order, as parent ranks: for newGroup the ranks as given; for
   * split the ranks of this request's color, ordered by (key, parent rank).
   *
   * @param all every rank's request, by parent rank (all splits when this is one)
   */
  int[] members(List<SubgroupRequest> all) {
    if (!isSplit()) {
      return ranks.clone();
    }
    List<Integer> same = new ArrayList<>();
    for (int r = 0; r < all.size(); r++) {
      if (all.get(r).color == color) {
        same.add(r);
      }
    }
    same.sort(Comparator.<Integer>comparingInt(r -> all.get(r).key).thenComparingInt(r -> r));
    return same.stream().mapToInt(Integer::intValue).toArray();
  }
}
