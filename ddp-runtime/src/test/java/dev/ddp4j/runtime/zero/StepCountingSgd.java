package dev.ddp4j.runtime.zero;

import java.util.Map;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.learning.GradientUpdater;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.schedule.ISchedule;

/**
 * An updater whose state is not whole arrays of its length: SGD plus one step counter per variable
 * ({@code n + 1} state elements: 7 for a layer of 4 weights and 1 bias), which ZeRO-1 cannot slice.
 */
final class StepCountingSgd implements IUpdater {

  private static final long serialVersionUID = 1L;
  private double lr = 0.1;

  @Override
  public long stateSize(long n) {
    return n + 1;
  }

  @Override
  public GradientUpdater<StepCountingSgd> instantiate(INDArray view, boolean initialize) {
    StepCountingSgd config = this;
    return new GradientUpdater<>() {
      private INDArray state = view;

      @Override
      public StepCountingSgd getConfig() {
        return config;
      }

      @Override
      public void setState(Map<String, INDArray> s, boolean init) {}

      @Override
      public Map<String, INDArray> getState() {
        return Map.of("state", state);
      }

      @Override
      public void setStateViewArray(INDArray v, long[] shape, char order, boolean init) {
        state = v;
      }

      @Override
      public void applyUpdater(INDArray gradient, int iteration, int epoch) {
        gradient.muli(lr);
      }
    };
  }

  @Override
  public GradientUpdater<StepCountingSgd> instantiate(Map<String, INDArray> s, boolean init) {
    return instantiate(s.get("state"), init);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StepCountingSgd other && other.lr == lr;
  }

  @Override
  public int hashCode() {
    return Double.hashCode(lr);
  }

  @Override
  public IUpdater clone() {
    StepCountingSgd c = new StepCountingSgd();
    c.lr = lr;
    return c;
  }

  @Override
  public double getLearningRate(int iteration, int epoch) {
    return lr;
  }

  @Override
  public boolean hasLearningRate() {
    return true;
  }

  @Override
  public void setLrAndSchedule(double lr, ISchedule schedule) {
    this.lr = lr;
  }
}
