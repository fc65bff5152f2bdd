package dev.ddp4j.runtime.comm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.runtime.DdpModel;
import dev.ddp4j.runtime.DdpOptions;
import dev.ddp4j.runtime.bucket.ParamLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * What hooks see of a bucket, on 2 real cpu ranks: each parameter's name, shape and offset are the
 * model's own, {@link GradBucket#gradient} is that parameter's gradient as backward computed it,
 * and a stateful user hook is called once per bucket and step in bucket order, with isLast on the
 * last.
 */
class GradBucketTest {

  private static final int IN = 4;
  private static final int HIDDEN = 5;
  private static final int STEPS = 3;

  /** One call of the recording hook. */
  record Call(int index, boolean last, long step, long offset, long length, List<String> params) {}

  /** A user's hook state: every call, and rank 0's first-step mismatches against the reference. */
  static final class Recorder {
    final List<Call> calls = new ArrayList<>();
    final List<String> mismatches = new ArrayList<>();
    Map<String, INDArray> reference;
    Model model;
    String kind;
  }

  private static DdpOptions options(CommHook hook) {
    // A first bucket of the output layer (18 elements), then one per hidden layer (30 and 20).
    return DdpOptions.builder().firstBucketBytes(64).bucketCapBytes(64).commHook(hook).build();
  }

  /**
   * The DL4J variable name of {@code p}: {@code 0_W} in a MultiLayerNetwork, {@code first_W} in a
   * graph.
   */
  private static String variable(Model m, ParamLayout p) {
    if (m instanceof ComputationGraph g) {
      return g.getVertices()[g.topologicalSortOrder()[p.layer()]].getVertexName() + "_" + p.key();
    }
    return p.layer() + "_" + p.key();
  }

  private static CommHook.Pending record(Recorder s, ProcessGroup group, GradBucket b) {
    List<String> names = new ArrayList<>();
    for (ParamLayout p : b.parameters()) {
      String v = variable(s.model, p);
      names.add(v + java.util.Arrays.toString(p.shape()) + "@" + b.offsetInBucket(p));
      INDArray param = s.model.getParam(v);
      // The layout is the model's: the parameter itself sits at that offset, in that shape.
      INDArray flat = s.model.params().reshape(s.model.params().length());
      INDArray there =
          flat.get(NDArrayIndex.interval(p.offset(), p.end())).reshape(p.order(), p.shape());
      if (!there.equals(param)) {
        s.mismatches.add(v + ": params at offset " + p.offset() + " are not the parameter");
      }
      if (b.step() == 0 && !b.gradient(p).equalsWithEps(s.reference.get(v), 1e-6)) {
        s.mismatches.add(v + ": gradient view " + b.gradient(p) + " vs " + s.reference.get(v));
      }
    }
    s.calls.add(new Call(b.index(), b.isLast(), b.step(), b.offset(), b.length(), names));
    return CommHook.Pending.of(b.allReduce(b.buffer()));
  }

  @ParameterizedTest
  @ValueSource(strings = {"mln", "cg"})
  void aStatefulHookShouldSeeEachBucketOncePerStepWithTheModelsParameters(String kind)
      throws Exception {
    List<Recorder> recorders =
        ThreadRanks.run(
            2,
            (rank, group) -> {
              Model m = HookModels.model(kind, IN, HIDDEN);
              DataSet first = HookModels.data(IN, 10 * rank, 6);
              Recorder state = new Recorder();
              state.model = m;
              state.kind = kind;
              state.reference = referenceGradients(kind, first);
              CommHook hook = CommHook.of("recording", state, GradBucketTest::record);
              try (DdpModel<?> ddp = HookModels.wrap(m, group, options(hook))) {
                assertThat(ddp.bucketPlan().buckets()).hasSize(3);
                for (int s = 0; s < STEPS; s++) {
                  ddp.fit(s == 0 ? first : HookModels.data(IN, 10 * rank + s, 6));
                }
              }
              return state;
            });
    for (Recorder r : recorders) {
      assertThat(r.mismatches).isEmpty();
      assertThat(r.calls).hasSize(3 * STEPS);
      for (int i = 0; i < r.calls.size(); i++) {
        Call c = r.calls.get(i);
        assertThat(c.index()).isEqualTo(i % 3);
        assertThat(c.step()).isEqualTo(i / 3);
        assertThat(c.last()).isEqualTo(i % 3 == 2);
      }
      String l0 = kind.equals("cg") ? "first" : "0";
      String l1 = kind.equals("cg") ? "second" : "1";
      String l2 = kind.equals("cg") ? "out" : "2";
      // Backward order: the output layer first, at the end of the flat gradient.
      assertThat(r.calls.subList(0, 3))
          .containsExactly(
              new Call(0, false, 0, 55, 18, List.of(l2 + "_W[5, 3]@0", l2 + "_b[3]@15")),
              new Call(1, false, 0, 25, 30, List.of(l1 + "_W[5, 5]@0", l1 + "_b[5]@25")),
              new Call(2, true, 0, 0, 25, List.of(l0 + "_W[4, 5]@0", l0 + "_b[5]@20")));
    }
  }

  @org.junit.jupiter.api.Test
  void aParameterOutsideTheBucketShouldBeRefusedNamingBoth() {
    var w = new ParamLayout(1, "layer 1 (DenseLayer)", "W", 20, new long[] {4, 5}, 'f');
    INDArray buffer = org.nd4j.linalg.factory.Nd4j.create(30);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new GradBucket(2, true, 0, buffer, 0, List.of(w), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "layer 1 (DenseLayer) W [4, 5] at 20 lies outside bucket 2 [0, 30) (expected: buckets of"
                + " whole parameters)");
  }

  /** The gradient of one process on {@code data}, by DL4J variable name. */
  private static Map<String, INDArray> referenceGradients(String kind, DataSet data) {
    Model m = HookModels.model(kind, IN, HIDDEN);
    if (m instanceof MultiLayerNetwork net) {
      net.setInput(data.getFeatures());
      net.setLabels(data.getLabels());
      net.computeGradientAndScore();
    } else {
      ComputationGraph g = (ComputationGraph) m;
      g.setInputs(data.getFeatures());
      g.setLabels(data.getLabels());
      g.computeGradientAndScore();
    }
    Map<String, INDArray> out = new java.util.HashMap<>();
    m.gradient().gradientForVariable().forEach((k, v) -> out.put(k, v.dup()));
    return out;
  }
}
