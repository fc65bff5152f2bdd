package dev.ddp4j.collectives.nccl;

/**
 * An NCCL release as {@code ncclGetVersion} reports it. NCCL's code is {@code X*1000 + Y*100 + Z}
 * up to 2.8 and {@code X*10000 + Y*100 + Z} from 2.9 on (its {@code NCCL_VERSION} macro).
 */
record NcclVersion(int major, int minor, int patch) implements Comparable<NcclVersion> {

  /**
   * Non-blocking communicators ({@code ncclConfig_t.blocking = 0}), which let every wait time out
   * instead of hanging, came in 2.14; ncclAvg and bfloat16 in 2.10.
   */
  static final NcclVersion MINIMUM = new NcclVersion(2, 14, 0);

  static NcclVersion decode(int code) {
    if (code < 10_000) {
      return new NcclVersion(code / 1000, code % 1000 / 100, code % 100);
    }
    return new NcclVersion(code / 10_000, code % 10_000 / 100, code % 100);
  }

  /** The code of this version in the 2.9+ form, as {@code ncclConfig_t.version} wants it. */
  int code() {
    return major * 10_000 + minor * 100 + patch;
  }

  @Override
  public int compareTo(NcclVersion o) {
    return Integer.compare(code(), o.code());
  }

  @Override
  public String toString() {
    return major + "." + minor + "." + patch;
  }
}
