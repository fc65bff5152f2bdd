package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DataType;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.plan.Algorithm;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

/**
 * The all-reduce kernels of {@code src/main/cuda/ddp4j_allreduce.cu}, loaded from the fat binary
 * shipped as a resource (sm_90 machine code plus compute_90 PTX, which newer GPUs JIT-compile) into
 * the current context. Kernel names are {@code ddp4j_<algorithm>_<dtype>_<op>}, e.g. {@code
 * ddp4j_oneshot_bfloat16_sum}.
 */
final class AllReduceKernels {

  static final String RESOURCE = "/dev/ddp4j/collectives/cuda/ddp4j_allreduce.fatbin";

  /** Threads per block, the kernels' {@code __launch_bounds__}. */
  static final int THREADS = 512;

  private final CUmodule module = new CUmodule();
  private final Map<Algorithm, CUfunction[][]> functions = new EnumMap<>(Algorithm.class);

  /** Ring reduce-scatter per dtype and op, {@code ddp4j_ringreducescatter_<dtype>_<op>}. */
  private final CUfunction[][] ringReduceScatter =
      new CUfunction[DataType.values().length][ReduceOp.values().length];

  /** Ring all-gather over bytes, {@code ddp4j_ringallgather_bytes}. */
  private final CUfunction ringAllGather;

  /** Ring (chain) broadcast over bytes, {@code ddp4j_ringbroadcast_bytes}. */
  private final CUfunction ringBroadcast;

  /** Loads the module into the current context and resolves every kernel. */
  AllReduceKernels() {
    Cu.loadModule(module, RESOURCE);
    for (Algorithm algo : Algorithm.kernels()) {
      CUfunction[][] byType = new CUfunction[DataType.values().length][ReduceOp.values().length];
      for (DataType t : DataType.values()) {
        for (ReduceOp op : ReduceOp.values()) {
          byType[t.ordinal()][op.ordinal()] = Cu.function(module, name(algo, t, op));
        }
      }
      functions.put(algo, byType);
    }
    for (DataType t : DataType.values()) {
      for (ReduceOp op : ReduceOp.values()) {
        ringReduceScatter[t.ordinal()][op.ordinal()] =
            Cu.function(module, ringReduceScatterName(t, op));
      }
    }
    ringAllGather = Cu.function(module, RING_ALL_GATHER);
    ringBroadcast = Cu.function(module, RING_BROADCAST);
  }

  static final String RING_ALL_GATHER = "ddp4j_ringallgather_bytes";
  static final String RING_BROADCAST = "ddp4j_ringbroadcast_bytes";

  CUfunction ringBroadcast() {
    return ringBroadcast;
  }

  static String ringReduceScatterName(DataType t, ReduceOp op) {
    return name(Algorithm.RING, t, op).replace("ddp4j_ring_", "ddp4j_ringreducescatter_");
  }

  CUfunction ringReduceScatter(DataType t, ReduceOp op) {
    return ringReduceScatter[t.ordinal()][op.ordinal()];
  }

  CUfunction ringAllGather() {
    return ringAllGather;
  }

  /**
   * The kernel family of {@code algo} in the fat binary's names ({@code
   * ddp4j_<prefix>_<type>_<op>}); {@link Algorithm#COPYENGINE}'s kernel only reduces ({@code
   * cereduce}): the copy engines move its data.
   */
  static String prefix(Algorithm algo) {
    return switch (algo) {
      case ONESHOT, TWOSHOT, LL, RING -> algo.id();
      case COPYENGINE -> "cereduce";
      case TREE, HIERARCHICAL ->
          throw new IllegalArgumentException(algo.id() + " has no all-reduce kernel of its own");
    };
  }

  static String name(Algorithm algo, DataType t, ReduceOp op) {
    String o = op == ReduceOp.PRODUCT ? "prod" : op.name().toLowerCase(Locale.ROOT);
    return "ddp4j_" + prefix(algo) + "_" + t.ncclName() + "_" + o;
  }

  CUfunction get(Algorithm algo, DataType t, ReduceOp op) {
    return functions.get(algo)[t.ordinal()][op.ordinal()];
  }

  void unload() {
    JCudaDriver.cuModuleUnload(module);
  }

  /**
   * Blocks of {@code algo}'s kernels (every dtype and op; the ring's reduce-scatter, all-gather and
   * broadcast with the ring) that one SM keeps resident at once, the least over them: what bounds a
   * spinning kernel's grid, whose blocks wait on each other's flags and so must all run together.
   */
  int residentBlocksPerSm(Algorithm algo) {
    List<CUfunction> fs = new ArrayList<>();
    for (CUfunction[] byOp : functions.get(algo)) {
      fs.addAll(List.of(byOp));
    }
    if (algo == Algorithm.RING) {
      for (CUfunction[] byOp : ringReduceScatter) {
        fs.addAll(List.of(byOp));
      }
      fs.add(ringAllGather);
      fs.add(ringBroadcast);
    }
    int least = Integer.MAX_VALUE;
    int[] n = new int[1];
    for (CUfunction f : fs) {
      Cu.check(
          JCudaDriver.cuOccupancyMaxActiveBlocksPerMultiprocessor(n, f, THREADS, 0),
          "cuOccupancyMaxActiveBlocksPerMultiprocessor");
      least = Math.min(least, n[0]);
    }
    return Math.max(1, least);
  }
}
