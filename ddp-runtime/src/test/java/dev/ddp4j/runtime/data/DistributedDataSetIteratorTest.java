package dev.ddp4j.runtime.data;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.deeplearning4j.datasets.iterator.utilty.ListDataSetIterator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;

class DistributedDataSetIteratorTest {

  /** n examples whose single feature is the example's id. */
  private static ListDataSetIterator<DataSet> ids(int n, int batch) {
    List<DataSet> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      list.add(
          new DataSet(
              Nd4j.scalar(DataType.FLOAT, i).reshape(1, 1), Nd4j.zeros(DataType.FLOAT, 1, 1)));
    }
    return new ListDataSetIterator<>(list, batch);
  }

  private static List<Integer> drain(DistributedDataSetIterator it) {
    List<Integer> seen = new ArrayList<>();
    while (it.hasNext()) {
      DataSet b = it.next();
      for (int i = 0; i < b.numExamples(); i++) {
        seen.add(b.getFeatures().getInt(i, 0));
      }
    }
    return seen;
  }

  @ParameterizedTest(name = "n={0} ranks={1} {2}")
  @CsvSource({
    "100,4,PAD",
    "103,4,PAD",
    "103,4,DROP",
    "5,8,PAD",
    "17,3,DROP",
    "103,4,UNEVEN",
    "5,8,UNEVEN"
  })
  void everyExampleShouldLandOnExactlyOneRankPerEpoch(
      int n, int ranks, DistributedDataSetIterator.Remainder remainder) {
    for (int epoch = 0; epoch < 3; epoch++) {
      List<Integer> all = new ArrayList<>();
      Set<Integer> distinct = new HashSet<>();
      int perRank = -1;
      for (int r = 0; r < ranks; r++) {
        DistributedDataSetIterator it =
            new DistributedDataSetIterator(ids(n, 8), r, ranks, 7, remainder);
        it.setEpoch(epoch);
        List<Integer> mine = drain(it);
        if (remainder == DistributedDataSetIterator.Remainder.UNEVEN) {
          assertThat(mine).hasSize(n / ranks + (r < n % ranks ? 1 : 0));
        } else if (perRank >= 0) {
          assertThat(mine).as("every rank gets as many examples").hasSize(perRank);
        }
        perRank = mine.size();
        all.addAll(mine);
        distinct.addAll(mine);
      }
      if (remainder == DistributedDataSetIterator.Remainder.DROP) {
        assertThat(all).hasSize(n / ranks * ranks).doesNotHaveDuplicates();
      } else if (remainder == DistributedDataSetIterator.Remainder.UNEVEN) {
        assertThat(all).hasSize(n).doesNotHaveDuplicates();
      } else {
        assertThat(distinct).as("nothing is dropped").hasSize(n);
        assertThat(all).hasSize((n + ranks - 1) / ranks * ranks);
      }
    }
  }

  @ParameterizedTest(name = "ranks={0}")
  @CsvSource({"1", "3"})
  void epochsShouldBeReshuffledTheSameWayOnEveryRankAndResumable(int ranks) {
    DistributedDataSetIterator a = new DistributedDataSetIterator(ids(60, 8), 0, ranks, 11);
    List<Integer> epoch0 = drain(a);
    a.reset();
    List<Integer> epoch1 = drain(a);
    assertThat(epoch1).isNotEqualTo(epoch0);
    assertThat(a.epoch()).isEqualTo(1);
    DistributedDataSetIterator resumed = new DistributedDataSetIterator(ids(60, 8), 0, ranks, 11);
    resumed.setEpoch(1);
    assertThat(drain(resumed)).isEqualTo(epoch1);
  }
}
