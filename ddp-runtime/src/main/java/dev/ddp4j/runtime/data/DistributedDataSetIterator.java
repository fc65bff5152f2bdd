package dev.ddp4j.runtime.data;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

/**
 * This rank's share of any DataSetIterator, like PyTorch's DistributedSampler: every epoch the
 * examples are shuffled with {@code seed + epoch} (the same permutation on every rank) and example
 * {@code i} of the permutation goes to rank {@code i mod worldSize}, so each example lands on
 * exactly one rank per epoch. When the examples do not divide evenly, the {@link Remainder} says
 * what happens to the last ones: {@code PAD} (the default, as PyTorch's {@code drop_last=False})
 * repeats examples from the start of the permutation on the last ranks, {@code DROP} drops them;
 * both give every rank the same number of examples. {@code UNEVEN} keeps each example exactly once,
 * so the first ranks hold one more: train it with {@code DdpModel}'s join mode.
 *
 * <p>The source is read once into memory (one example per entry): meant for data sets that fit in
 * memory; stream larger ones from per-rank files.
 */
public final class DistributedDataSetIterator implements DataSetIterator {
  private static final long serialVersionUID = 1L;

  private final List<DataSet> examples;
  private final int rank;
  private final int worldSize;
  private final long seed;
  private final Remainder remainder;
  private final int batchSize;
  private final List<String> labels;
  private int epoch;
  private List<Integer> mine = List.of();
  private int cursor;
  private DataSetPreProcessor preProcessor;

  /**
   * @param source read to the end once; its batch size is kept
   * @param rank this rank
   * @param worldSize number of ranks
   * @param seed shuffles every epoch with {@code seed + epoch}; every rank must pass the same seed
   * @param remainder what happens to examples that do not divide evenly over the ranks
   */
  public DistributedDataSetIterator(
      DataSetIterator source, int rank, int worldSize, long seed, Remainder remainder) {
    if (worldSize < 1 || rank < 0 || rank >= worldSize) {
      throw new IllegalArgumentException(
          "rank " + rank + " of worldSize " + worldSize + " (expected: 0 <= rank < worldSize)");
    }
    this.rank = rank;
    this.worldSize = worldSize;
    this.seed = seed;
    if (remainder == null) {
      throw new IllegalArgumentException("remainder : null (expected: PAD, DROP or UNEVEN)");
    }
    this.remainder = remainder;
    this.examples = new ArrayList<>();
    int firstBatch = 0;
    if (source.resetSupported()) {
      source.reset();
    }
    while (source.hasNext()) {
      DataSet batch = source.next();
      firstBatch = Math.max(firstBatch, batch.numExamples());
      examples.addAll(batch.asList());
    }
    this.batchSize = Math.max(1, firstBatch);
    this.labels = source.getLabels();
    setEpoch(0);
  }

  /** This rank's share, the last ranks padded ({@link Remainder#PAD}). */
  public DistributedDataSetIterator(DataSetIterator source, int rank, int worldSize, long seed) {
    this(source, rank, worldSize, seed, Remainder.PAD);
  }

  /** What happens to the examples left over when they do not divide evenly over the ranks. */
  public enum Remainder {
    /** The last ranks repeat examples from the start of the permutation: all ranks even. */
    PAD,
    /** The left-over examples are not served this epoch: all ranks even. */
    DROP,
    /** Each example exactly once: the first {@code n mod worldSize} ranks get one more. */
    UNEVEN
  }

  /** Selects epoch {@code e}'s permutation (to resume from a checkpoint) and rewinds. */
  public void setEpoch(int e) {
    this.epoch = e;
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < examples.size(); i++) {
      order.add(i);
    }
    java.util.Collections.shuffle(order, new Random(seed + e));
    int n = examples.size();
    int perRank =
        switch (remainder) {
          case PAD -> (n + worldSize - 1) / worldSize;
          case DROP -> n / worldSize;
          case UNEVEN -> n / worldSize + (rank < n % worldSize ? 1 : 0);
        };
    List<Integer> picked = new ArrayList<>(perRank);
    for (int k = 0; k < perRank; k++) {
      int i = k * worldSize + rank;
      picked.add(order.isEmpty() ? 0 : order.get(i % order.size()));
    }
    this.mine = examples.isEmpty() ? List.of() : picked;
    this.cursor = 0;
  }

  /** The epoch whose permutation is being served. */
  public int epoch() {
    return epoch;
  }

  /** Examples this rank sees per epoch. */
  public int examplesPerEpoch() {
    return mine.size();
  }

  @Override
  public DataSet next(int num) {
    if (!hasNext()) {
      throw new java.util.NoSuchElementException(
          "rank " + rank + " has served all " + mine.size() + " examples of epoch " + epoch);
    }
    int end = Math.min(mine.size(), cursor + num);
    List<DataSet> part = new ArrayList<>(end - cursor);
    for (int k = cursor; k < end; k++) {
      part.add(examples.get(mine.get(k)));
    }
    cursor = end;
    DataSet out = DataSet.merge(part);
    if (preProcessor != null) {
      preProcessor.preProcess(out);
    }
    return out;
  }

  @Override
  public DataSet next() {
    return next(batchSize);
  }

  @Override
  public boolean hasNext() {
    return cursor < mine.size();
  }

  /**
   * Rewinds and moves to the next epoch's permutation (the first reset after construction keeps
   * epoch 0).
   */
  @Override
  public void reset() {
    if (cursor == 0) {
      return;
    }
    setEpoch(epoch + 1);
  }

  @Override
  public int inputColumns() {
    return examples.isEmpty() ? 0 : (int) examples.get(0).getFeatures().size(1);
  }

  @Override
  public int totalOutcomes() {
    return examples.isEmpty() ? 0 : (int) examples.get(0).getLabels().size(1);
  }

  @Override
  public boolean resetSupported() {
    return true;
  }

  @Override
  public boolean asyncSupported() {
    return false;
  }

  @Override
  public int batch() {
    return batchSize;
  }

  @Override
  public void setPreProcessor(DataSetPreProcessor preProcessor) {
    this.preProcessor = preProcessor;
  }

  @Override
  public DataSetPreProcessor getPreProcessor() {
    return preProcessor;
  }

  @Override
  public List<String> getLabels() {
    return labels;
  }

  @Override
  public void remove() {
    throw new UnsupportedOperationException("remove");
  }
}
