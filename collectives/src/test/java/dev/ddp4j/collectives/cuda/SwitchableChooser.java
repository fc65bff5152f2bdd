package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DataType;
import dev.ddp4j.Store;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.plan.Algorithm;
import java.time.Duration;

/**
 * A chooser the harness re-points between runs: the default cost table ({@code auto}), or one
 * algorithm forced at every size, optionally with a fixed block count and step ({@code
 * oneshot:blocks=64:step=131072}). Test code only: it sits in the cuda package (of the test
 * sources), since a group takes a chooser other than its plan's only here.
 */
public final class SwitchableChooser implements AllReduceChooser {

  private int maxBlocks = 1;
  private AllReduceChooser plan;
  private AllReduceChooser current;
  private String label = "auto";

  /**
   * Joins a cuda group (collective, as {@link CudaProcessGroup#create}) whose all-reduce asks this
   * chooser, {@code auto} pointing at the group's plan.
   */
  public CudaProcessGroup join(
      WorkerEnvironment worker, Store store, Duration timeout, long scratchBudgetBytes) {
    CudaProcessGroup pg =
        CudaProcessGroup.create(
            worker, store, timeout, this, scratchBudgetBytes, dev.ddp4j.spi.Settings.process());
    bind(pg.planChooser(), pg.plan().wideChannels());
    return pg;
  }

  /** Points {@code auto} at the group's plan; forced variants use up to {@code maxBlocks}. */
  private void bind(AllReduceChooser plan, int maxBlocks) {
    this.plan = plan;
    this.current = plan;
    this.maxBlocks = maxBlocks;
  }

  /** Sets the variant: {@code auto}, {@code oneshot}, {@code twoshot}, with optional overrides. */
  public void set(String variant) {
    String[] parts = variant.split(":");
    Algorithm algo = parts[0].equals("auto") ? null : Algorithm.parse(parts[0]);
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
                    algo == Algorithm.LL && bytes > ScratchLayout.LL_MAX_BYTES
                        ? Algorithm.ONESHOT
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

  public String label() {
    return label;
  }

  @Override
  public AllReduceTuning choose(long bytes, int ranks, DataType dataType) {
    return current.choose(bytes, ranks, dataType);
  }
}
