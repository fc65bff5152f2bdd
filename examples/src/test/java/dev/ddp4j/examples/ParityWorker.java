package dev.ddp4j.examples;

import dev.ddp4j.Ddp;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.runtime.DdpModel;
import dev.ddp4j.runtime.DdpOptions;
import dev.ddp4j.runtime.comm.CommHooks;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.nio.file.Path;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.dataset.DataSet;

/**
 * A worker of the DDP parity tests, started by the launcher: trains {@code steps} steps on its rows
 * of each global batch and writes its parameters after every step to {@code
 * <outDir>/rank<R>.params} (floats).
 *
 * <p>Arguments: {@code mln|cg sgd|adam steps localBatch outDir [hook]}. Rank 0 starts from
 * different weights than the others (seed + rank), so the initial broadcast is checked too.
 */
public final class ParityWorker {

  private ParityWorker() {}

  public static void main(String[] args) throws Exception {
    String kind = args[0];
    String updater = args[1];
    int steps = Integer.parseInt(args[2]);
    int localBatch = Integer.parseInt(args[3]);
    Path out = Path.of(args[4]);
    // Without a hook argument, the environment's (DDP4J_COMM_HOOK ...) or the default all-reduce.
    String hook = args.length > 5 ? args[5] : null;
    try (ProcessGroup pg = Ddp.init()) {
      long seed = 1234 + pg.rank();
      Model model =
          kind.equals("cg")
              ? ParityModels.graph(updater, seed)
              : ParityModels.multiLayer(updater, seed);
      // Tiny buckets so that every layer travels in its own bucket, launched from its backward
      // hook.
      DdpOptions.Builder options =
          DdpOptions.fromEnvironment().toBuilder().firstBucketBytes(64).bucketCapBytes(2048);
      if (hook != null) {
        options.commHook(CommHooks.named(hook));
      }
      DdpModel ddp =
          model instanceof MultiLayerNetwork
              ? DdpModel.wrap((MultiLayerNetwork) model, pg, options.build())
              : DdpModel.wrap((ComputationGraph) model, pg, options.build());
      try (ddp;
          DataOutputStream o =
              new DataOutputStream(
                  new FileOutputStream(out.resolve("rank" + pg.rank() + ".params").toFile()))) {
        write(o, model);
        for (int s = 0; s < steps; s++) {
          DataSet global = ParityModels.globalBatch(99, s, localBatch * pg.size());
          ddp.fit(ParityModels.rows(global, pg.rank() * localBatch, localBatch));
          write(o, model);
        }
      }
    }
  }

  private static void write(DataOutputStream o, Model model) throws java.io.IOException {
    float[] p = model.params().dup().data().asFloat();
    o.writeInt(p.length);
    for (float v : p) {
      o.writeFloat(v);
    }
  }
}
