package dev.ddp4j.examples;

import dev.ddp4j.Ddp;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.runtime.DdpModel;
import dev.ddp4j.runtime.DdpOptions;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.nio.file.Path;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.dataset.DataSet;

/**
 * A worker of {@link ResNetParityTest}, started by the launcher: trains a {@link ResNetModels}
 * graph for {@code steps} steps on its rows of each global batch and writes all parameters (running
 * statistics included) after every step to {@code <outDir>/rank<R>.params}.
 *
 * <p>Arguments: {@code steps localBatch outDir}; synchronised batch norm comes from {@code
 * DDP4J_SYNC_BATCHNORM}, as a user would set it.
 */
public final class ResNetWorker {

  private ResNetWorker() {}

  public static void main(String[] args) throws Exception {
    int steps = Integer.parseInt(args[0]);
    int localBatch = Integer.parseInt(args[1]);
    Path out = Path.of(args[2]);
    try (ProcessGroup pg = Ddp.init()) {
      ComputationGraph net = ResNetModels.model(1234 + pg.rank());
      try (DdpModel ddp = DdpModel.wrap(net, pg, DdpOptions.fromEnvironment());
          DataOutputStream o =
              new DataOutputStream(
                  new FileOutputStream(out.resolve("rank" + pg.rank() + ".params").toFile()))) {
        write(o, net);
        for (int s = 0; s < steps; s++) {
          DataSet global = ResNetModels.globalBatch(s, localBatch * pg.size());
          ddp.fit(ParityModels.rows(global, pg.rank() * localBatch, localBatch));
          write(o, net);
        }
      }
    }
  }

  private static void write(DataOutputStream o, ComputationGraph net) throws java.io.IOException {
    float[] p = net.params().dup().data().asFloat();
    o.writeInt(p.length);
    for (float v : p) {
      o.writeFloat(v);
    }
  }
}
