package dev.ddp4j.collectives.plan;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * The planner's forecast for one all-reduce size.
 *
 * @param bytes message size
 * @param chosen the algorithm the plan uses at this size
 * @param timeUs predicted time of every algorithm that applies, µs
 * @param ranks number of ranks (for bus bandwidth)
 * @param hierarchicalChunks the chunks a hierarchical all-reduce of this size runs as (its
 *     pipeline, {@link CostModel#hierarchical}); 1 where the plan has no islands
 */
public record Prediction(
    long bytes,
    Algorithm chosen,
    Map<Algorithm, Double> timeUs,
    int ranks,
    int hierarchicalChunks) {

  public Prediction {
    timeUs = Collections.unmodifiableMap(new EnumMap<>(timeUs));
  }

  /** NCCL's bus bandwidth of {@code a} at this size, GB/s. */
  public double busBwGbps(Algorithm a) {
    return CostModel.busBwGbps(bytes, timeUs.get(a), ranks);
  }
}
