package dev.ddp4j.collectives.plan;

/**
 * How good a ring is, compared lexicographically: the larger bottleneck bandwidth first (GB/s a
 * ring hop gets on its most loaded link, counting every ring hop that shares a physical link), then
 * the fewer ring hops that cross a bottleneck link.
 *
 * @param bottleneckGbps the smallest {@code bandwidth / flows} over the directed links used
 * @param hopsAtBottleneck ring hops whose route crosses a link at the bottleneck
 */
public record RingScore(double bottleneckGbps, int hopsAtBottleneck)
    implements Comparable<RingScore> {

  /** Relative tolerance under which two bandwidths are the same bottleneck. */
  static final double EPS = 1e-9;

  /** Positive when this ring is better than {@code o}. */
  @Override
  public int compareTo(RingScore o) {
    if (Math.abs(bottleneckGbps - o.bottleneckGbps) > EPS * Math.max(1, o.bottleneckGbps)) {
      return Double.compare(bottleneckGbps, o.bottleneckGbps);
    }
    return Integer.compare(o.hopsAtBottleneck, hopsAtBottleneck);
  }

  /** The worst possible score, below any ring. */
  static RingScore worst() {
    return new RingScore(-1, Integer.MAX_VALUE);
  }
}
