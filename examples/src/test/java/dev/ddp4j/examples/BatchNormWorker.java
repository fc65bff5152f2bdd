package dev.ddp4j.examples;

import dev.ddp4j.Ddp;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.runtime.DdpModel;
import dev.ddp4j.runtime.DdpOptions;
import dev.ddp4j.runtime.nd4jcuda.Nd4jDevices;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.nio.file.Path;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.dataset.DataSet;

/**
 * A worker of the batch norm tests, started by the launcher: trains a {@link BatchNormModels} model
 * for {@code steps} steps on its rows of each global batch and writes all parameters (running
 * statistics included) after every step to {@code <outDir>/rank<R>.params}.
 *
 * <p>Arguments: {@code dense|cnn steps localBatch outDir}; synchronised batch norm comes from
 * {@code DDP4J_SYNC_BATCHNORM}, as a user would set it.
 */
public final class BatchNormWorker {

  private BatchNormWorker() {}

  public static void main(String[] args) throws Exception {
    String kind = args[0];
    int steps = Integer.parseInt(args[1]);
    int localBatch = Integer.parseInt(args[2]);
    Path out = Path.of(args[3]);
    try (ProcessGroup pg = Ddp.init()) {
      // ND4J's CUDA backend only (a no-op on the CPU): this rank's arrays on its own GPU.
      Nd4jDevices.pinThreadToLocalRank(
          Integer.parseInt(System.getenv().getOrDefault("LOCAL_RANK", "0")));
      MultiLayerNetwork net = BatchNormModels.model(kind, 1234 + pg.rank());
      DdpOptions options =
          DdpOptions.fromEnvironment().toBuilder()
              .firstBucketBytes(64)
              .bucketCapBytes(2048)
              .build();
      try (DdpModel ddp = DdpModel.wrap(net, pg, options);
          DataOutputStream o =
              new DataOutputStream(
                  new FileOutputStream(out.resolve("rank" + pg.rank() + ".params").toFile()))) {
        write(o, net);
        for (int s = 0; s < steps; s++) {
          DataSet global = BatchNormModels.globalBatch(kind, s, localBatch * pg.size());
          ddp.fit(ParityModels.rows(global, pg.rank() * localBatch, localBatch));
          write(o, net);
        }
      }
    }
  }

  private static void write(DataOutputStream o, MultiLayerNetwork net) throws java.io.IOException {
    float[] p = net.params().dup().data().asFloat();
    o.writeInt(p.length);
    for (float v : p) {
      o.writeFloat(v);
    }
  }
}
