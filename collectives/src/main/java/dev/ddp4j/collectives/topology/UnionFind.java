package dev.ddp4j.collectives.topology;

/** Disjoint sets over 0..n-1 with component sizes. */
final class UnionFind {
  private final int[] parent;
  private final int[] size;

  UnionFind(int n) {
    parent = new int[n];
    size = new int[n];
    for (int i = 0; i < n; i++) {
      parent[i] = i;
      size[i] = 1;
    }
  }

  int find(int x) {
    while (parent[x] != x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  }

  void union(int a, int b) {
    int ra = find(a);
    int rb = find(b);
    if (ra != rb) {
      if (size[ra] < size[rb]) {
        int t = ra;
        ra = rb;
        rb = t;
      }
      parent[rb] = ra;
      size[ra] += size[rb];
    }
  }

  int size(int x) {
    return size[find(x)];
  }
}
