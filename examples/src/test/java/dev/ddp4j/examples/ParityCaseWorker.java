package dev.ddp4j.examples;

import dev.ddp4j.Ddp;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.runtime.DdpModel;
import dev.ddp4j.runtime.DdpOptions;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import org.deeplearning4j.nn.api.Model;
import org.nd4j.linalg.dataset.DataSet;

/**
 * A worker of the noise-floor parity suite, started by the launcher: for each named {@link
 * ParityCase} in turn (one JVM start for several models), wraps a fresh model in DdpModel, fits
 * {@code steps} steps on this rank's rows of each global batch and writes all parameters after the
 * broadcast and after every step to {@code <outDir>/<case>.rank<R>.params}.
 *
 * <p>Arguments: {@code steps localBatch outDir case[,case...]}. Rank r starts from seed 1234 + r,
 * so the broadcast of rank 0's state is checked too; {@code DDP4J_SYNC_BATCHNORM} and the other
 * options come from the environment, as a user would set them.
 */
public final class ParityCaseWorker {

  private ParityCaseWorker() {}

  public static void main(String[] args) throws Exception {
    int steps = Integer.parseInt(args[0]);
    int localBatch = Integer.parseInt(args[1]);
    Path out = Path.of(args[2]);
    try (ProcessGroup pg = Ddp.init()) {
      for (String name : args[3].split(",")) {
        ParityCase c = ParityCase.valueOf(name);
        Model model = c.model(1234 + pg.rank());
        // Small buckets, so that several all-reduces start from backward hooks.
        DdpOptions options =
            DdpOptions.fromEnvironment().toBuilder()
                .firstBucketBytes(64)
                .bucketCapBytes(2048)
                .build();
        try (DdpModel ddp = ParityCase.wrap(model, pg, options);
            DataOutputStream o =
                new DataOutputStream(
                    new FileOutputStream(
                        out.resolve(c + ".rank" + pg.rank() + ".params").toFile()))) {
          write(o, model);
          for (int s = 0; s < steps; s++) {
            DataSet global = c.globalBatch(s, localBatch * pg.size());
            ddp.fit(ParityModels.rows(global, pg.rank() * localBatch, localBatch));
            write(o, model);
          }
        }
      }
    }
  }

  static void write(DataOutputStream o, Model model) throws IOException {
    float[] p = model.params().dup().data().asFloat();
    o.writeInt(p.length);
    for (float v : p) {
      o.writeFloat(v);
    }
  }
}
