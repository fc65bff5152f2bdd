package dev.ddp4j.examples;

import dev.ddp4j.ProcessGroup;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.optimize.api.BaseTrainingListener;

/**
 * Rank 0's progress: a bar, the loss and the examples per second over all ranks, about four lines
 * an epoch.
 */
final class ProgressListener extends BaseTrainingListener {

  private final ProcessGroup group;
  private final int stepsPerEpoch;
  private final int batchSize;
  private int epoch;
  private int epochs;
  private int step;
  private long epochStartNs;

  ProgressListener(ProcessGroup group, int stepsPerEpoch, int batchSize) {
    this.group = group;
    this.stepsPerEpoch = Math.max(1, stepsPerEpoch);
    this.batchSize = batchSize;
  }

  void startEpoch(int e, int total) {
    epoch = e;
    epochs = total;
    step = 0;
    epochStartNs = System.nanoTime();
  }

  @Override
  public void iterationDone(Model model, int iteration, int ep) {
    step++;
    if (group.rank() != 0
        || (step % Math.max(1, stepsPerEpoch / 4) != 0 && step != stepsPerEpoch)) {
      return;
    }
    double seconds = (System.nanoTime() - epochStartNs) / 1e9;
    double examplesPerSecond = (double) step * batchSize * group.size() / seconds;
    int filled = (int) Math.round(20.0 * step / stepsPerEpoch);
    System.out.printf(
        "epoch %d/%d [%s%s] %3d%% loss %.4f %,.0f examples/s%n",
        epoch + 1,
        epochs,
        "#".repeat(Math.min(20, filled)),
        ".".repeat(Math.max(0, 20 - filled)),
        Math.min(100, 100 * step / stepsPerEpoch),
        model.score(),
        examplesPerSecond);
  }
}
