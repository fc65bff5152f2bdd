package dev.ddp4j.runtime.comm;

import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Starts an all-reduce (sum) of an ND4J array in place, in whatever memory ND4J keeps it: host
 * memory on ND4J's CPU backend, device memory on its CUDA backend with a {@code cuda} group, host
 * copies staged to and from the device with a {@code cpu} group. DdpModel gives hooks the one that
 * fits ({@code NdCollectives}), so a hook never chooses the memory itself.
 */
@FunctionalInterface
public interface ArrayAllReduce {

  /**
   * Starts summing {@code array} (contiguous, outside workspaces) over every rank. The array must
   * stay reachable and untouched until the returned work completed; after {@link Work#await} it
   * holds the sum where ND4J reads it next.
   */
  Work start(INDArray array);

  /** Host memory in place: ND4J's CPU backend. */
  static ArrayAllReduce host(ProcessGroup group) {
    return array -> group.allReduce(NdBuffers.host(array), ReduceOp.SUM);
  }
}
