package dev.ddp4j.collectives.plan;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A plan as canonical text and its SHA-256: what ranks compare through the store to be sure they
 * run the same schedules (ranks that planned over different topologies or settings would otherwise
 * wait for each other's pieces until the timeout).
 */
public final class PlanDigest {

  private PlanDigest() {}

  /** Hex SHA-256 of {@link #canonical}. */
  public static String sha256(Plan p) {
    try {
      byte[] d =
          MessageDigest.getInstance("SHA-256")
              .digest(canonical(p).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
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
    b.append('\n');
    for (Prediction row : p.table()) {
      b.append(row.bytes()).append(' ').append(row.chosen().id()).append('\n');
    }
    return b.toString();
  }
}
