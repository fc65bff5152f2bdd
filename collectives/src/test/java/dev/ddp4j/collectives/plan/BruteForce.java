package dev.ddp4j.collectives.plan;

import dev.ddp4j.testing.Permutations;

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
    } while (Permutations.next(order, 1));
    return best;
  }
}
