package dev.ddp4j.collectives.cuda.harness;

import dev.ddp4j.DataType;
import dev.ddp4j.collectives.cuda.AllReduceAlgorithm;
import dev.ddp4j.collectives.cuda.AllReduceChooser;
import dev.ddp4j.collectives.cuda.AllReduceTuning;
import dev.ddp4j.collectives.cuda.PlanChooser;

/**
 * A chooser the harness re-points between runs: the default cost table ({@code auto}), or one
 * algorithm forced at every size, optionally with a fixed block count and step ({@code
 * oneshot:blocks=64:step=131072}).
 */
final class SwitchableChooser implements AllReduceChooser {

  private int maxBlocks = 1;
  private AllReduceChooser plan;
  private AllReduceChooser current;
  private String label = "auto";

  /** Points {@code auto} at the group's plan; forced variants use up to {@code maxBlocks}. */
  void bind(AllReduceChooser plan, int maxBlocks) {
    this.plan = plan;
    this.current = plan;
    this.maxBlocks = maxBlocks;
  }

  /** Sets the variant: {@code auto}, {@code oneshot}, {@code twoshot}, with optional overrides. */
  void set(String variant) {
    String[] parts = variant.split(":");
    AllReduceAlgorithm algo = parts[0].equals("auto") ? null : AllReduceAlgorithm.parse(parts[0]);
    int blocks = -1;
    long step = -1;
    for (int i = 1; i < parts.length; i++) {
      String[] kv = parts[i].split("=");
      switch (kv[0]) {
        case "blocks" -> blocks = Integer.parseInt(kv[1]);
        case "step" -> step = Long.parseLong(kv[1]);
        default -> throw new IllegalArgumentException("unknown variant option " + parts[i]);
      }
    }
    int cap = blocks > 0 ? blocks : maxBlocks;
    AllReduceChooser base =
        algo == null
            ? plan
            : (bytes, ranks, t) ->
                PlanChooser.shape(
                    algo == AllReduceAlgorithm.LL && bytes > PlanChooser.LL_MAX_BYTES
                        ? AllReduceAlgorithm.ONESHOT
                        : algo,
                    bytes,
                    ranks,
                    cap);
    long fixedStep = step;
    int fixedBlocks = blocks;
    current =
        (bytes, ranks, t) -> {
          AllReduceTuning c = base.choose(bytes, ranks, t);
          return new AllReduceTuning(
              c.algorithm(),
              fixedBlocks > 0 && parts.length > 1 ? Math.min(fixedBlocks, c.blocks()) : c.blocks(),
              fixedStep > 0 ? fixedStep : c.stepBytes());
        };
    label = variant;
  }

  String label() {
    return label;
  }

  @Override
  public AllReduceTuning choose(long bytes, int ranks, DataType dataType) {
    return current.choose(bytes, ranks, dataType);
  }
}
