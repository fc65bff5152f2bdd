package dev.ddp4j.collectives.topology;

import java.util.ArrayList;
import java.util.List;

/**
 * The job-wide topology, built the same way on every rank: each host's view travels as NCCL
 * topology XML ({@link #publish}) through the store, one entry per node rank; every rank joins the
 * entries in node-rank order ({@link #combine}) and compares {@link TopologyHash#sha256} with rank
 * 0's, so no rank plans over a different graph.
 *
 * <pre>
 *   store key                 value
 *   topo/host/&lt;groupRank&gt;     publish(local view)      written by local rank 0 of each node
 *   topo/hash                 sha256(combine(...))     written by rank 0, checked by every rank
 * </pre>
 */
public final class GlobalTopology {

  private GlobalTopology() {}

  /** This host's view as it goes into the store. */
  public static String publish(Topology host) {
    return NcclTopoXmlWriter.write(host);
  }

  /** Joins the hosts' published views, index = node rank. */
  public static Topology combine(List<String> publishedByNodeRank) {
    List<Topology> hosts = new ArrayList<>();
    for (int i = 0; i < publishedByNodeRank.size(); i++) {
      try {
        hosts.add(NcclTopoXmlReader.parse(publishedByNodeRank.get(i)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "node " + i + " published a topology that does not parse: " + e.getMessage(), e);
      }
    }
    return hosts.size() == 1 ? hosts.get(0) : MultiHost.join(hosts);
  }

  /**
   * Throws naming both hashes when this rank's topology differs from rank 0's.
   *
   * @param rank this rank, for the message
   */
  public static void checkAgrees(Topology mine, String rank0Hash, int rank) {
    String h = TopologyHash.sha256(mine);
    if (!h.equals(rank0Hash)) {
      throw new IllegalStateException(
          "rank "
              + rank
              + " built topology "
              + h.substring(0, 12)
              + " but rank 0 built "
              + rank0Hash.substring(0, Math.min(12, rank0Hash.length()))
              + ": ranks would plan different routes (check every node runs the same ddp4j version"
              + " and the same DDP4J_TOPO_FILE)");
    }
  }
}
