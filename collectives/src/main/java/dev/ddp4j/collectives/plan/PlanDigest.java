package dev.ddp4j.collectives.plan;

import dev.ddp4j.collectives.topology.TopologyHash;
import java.util.Arrays;

/**
 * A plan as canonical text and its SHA-256: what ranks compare through the store to be sure they
 * run the same schedules (ranks that planned over different topologies or settings would otherwise
 * wait for each other's pieces until the timeout).
 */
public final class PlanDigest {

  private PlanDigest() {}

  /** Hex SHA-256 of {@link #canonical}. */
  public static String sha256(Plan p) {
    return TopologyHash.sha256(canonical(p));
  }

  /** Everything the schedules depend on, one item a line; warnings are left out. */
  public static String canonical(Plan p) {
    StringBuilder b = new StringBuilder();
    b.append("topology ").append(p.topologyHash()).append('\n');
    b.append("devices ").append(Arrays.toString(p.devices())).append('\n');
    for (int[] ring : p.rings()) {
      b.append("ring ").append(Arrays.toString(ring)).append('\n');
    }
    for (int[] parents : p.trees().parents()) {
      b.append("tree ").append(Arrays.toString(parents)).append('\n');
    }
    for (int[] island : p.islands()) {
      b.append("island ").append(Arrays.toString(island)).append('\n');
    }
    b.append("wide ").append(p.wideChannels()).append(" direct ").append(p.directOk());
    b.append(" inter-host ").append(p.interHost().id());
    b.append('\n');
    for (Prediction row : p.table()) {
      b.append(row.bytes()).append(' ').append(row.chosen().id());
      b.append(' ').append(row.hierarchicalChunks()).append('\n');
    }
    return b.toString();
  }
}
