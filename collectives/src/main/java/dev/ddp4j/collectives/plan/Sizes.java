package dev.ddp4j.collectives.plan;

/** Byte counts as people write them: 8 B, 64 KiB, 256 MiB. */
public final class Sizes {

  private Sizes() {}

  public static String human(long bytes) {
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double v = bytes;
    while (v >= 1024 && u < units.length - 1 && v % 1024 == 0) {
      v /= 1024;
      u++;
    }
    return (long) v + " " + units[u];
  }
}
