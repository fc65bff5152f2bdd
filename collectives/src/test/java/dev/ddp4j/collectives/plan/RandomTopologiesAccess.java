package dev.ddp4j.collectives.plan;

import dev.ddp4j.collectives.topology.Topology;

/** Lets tests of other packages use {@link RandomTopologies}. */
public final class RandomTopologiesAccess {
  private RandomTopologiesAccess() {}

  public static Topology generate(long seed, int gpus) {
    return RandomTopologies.generate(seed, gpus);
  }
}
