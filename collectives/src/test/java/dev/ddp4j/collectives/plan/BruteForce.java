package dev.ddp4j.collectives.plan;

/**
 * Scores every ring through ranks 0..n-1 that starts at rank 0: the reference the search must
 * match.
 */
final class BruteForce {

  private BruteForce() {}

  static RingScore bestScore(RingScorer s, int n) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    RingScore best = RingScore.worst();
    do {
      RingScore sc = s.score(order);
      if (sc.compareTo(best) > 0) {
        best = sc;
      }
    } while (nextPermutation(order, 1));
    return best;
  }

  /** Next lexicographic permutation of order[from..]; false after the last. */
  static boolean nextPermutation(int[] a, int from) {
    int i = a.length - 2;
    while (i >= from && a[i] >= a[i + 1]) {
      i--;
    }
    if (i < from) {
      return false;
    }
    int j = a.length - 1;
    while (a[j] <= a[i]) {
      j--;
    }
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
    for (int l = i + 1, r = a.length - 1; l < r; l++, r--) {
      t = a[l];
      a[l] = a[r];
      a[r] = t;
    }
    return true;
  }
}
