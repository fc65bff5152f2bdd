package dev.ddp4j.collectives.stall;

/** What benchmarks outside this package may call to time the inspector's own work. */
public final class StallProbe {
  private StallProbe() {}

  /** {@link CallSite#of}: the call site a report shows for {@code thread}. */
  public static String siteOf(Thread thread) {
    return CallSite.of(thread);
  }
}
