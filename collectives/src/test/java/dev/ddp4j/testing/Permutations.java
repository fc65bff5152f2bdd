package dev.ddp4j.testing;

/** Lexicographic permutations in place, for brute-force references in tests. */
public final class Permutations {

  private Permutations() {}

  /** Steps {@code a[from..]} to its next lexicographic permutation; false after the last. */
  public static boolean next(int[] a, int from) {
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
    swap(a, i, j);
    for (int l = i + 1, r = a.length - 1; l < r; l++, r--) {
      swap(a, l, r);
    }
    return true;
  }

  private static void swap(int[] a, int i, int j) {
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}
