package dev.ddp4j.collectives.cuda.harness;

import dev.ddp4j.DataType;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.collectives.cuda.CudaProcessGroup;
import dev.ddp4j.collectives.cuda.SwitchableChooser;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.gpu.DeviceGroup;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * One rank's correctness run: every op x dtype x size class (0, 1, odd, unaligned, not divisible by
 * the ranks, larger than one launch, 1 GiB), in place and out of place, for each algorithm, then
 * {@link CollectiveCheck}'s reduceScatter, allGather and broadcast cases; random inputs that every
 * rank can recompute (TestValues), a float64 reference, output poisoned before each run, and the
 * input of out-of-place runs checked unchanged. Prints one line per case on rank 0 (failures on
 * every rank) and returns the number of failed cases.
 */
final class AllReduceCheck {

  private static final byte POISON = 0x7f;

  private final DeviceGroup pg;

  /** Null for a group whose all-reduce has no algorithm to choose (nccl). */
  private final SwitchableChooser chooser;

  private final PrintStream out;
  private final long stream;
  private long seed = 1;
  private int cases;
  private int failed;

  AllReduceCheck(DeviceGroup pg, SwitchableChooser chooser, PrintStream out) {
    this.pg = pg;
    this.chooser = chooser;
    this.out = out;
    CUstream s = new CUstream();
    Cu.check(
        JCudaDriver.cuStreamCreate(s, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    this.stream = Cu.handle(s);
  }

  int cases() {
    return cases;
  }

  int failed() {
    return failed;
  }

  void runAll(boolean full) {
    runAll(full, List.of("ll", "oneshot", "twoshot", "copyengine", "ring"));
  }

  /**
   * As {@link #runAll(boolean)} with only the all-reduce algorithms named (where there is a
   * choice).
   */
  void runAll(boolean full, List<String> algorithms) {
    // A group routed around pairs without peer access runs the ring whatever the chooser says.
    String route = pg instanceof CudaProcessGroup cuda ? cuda.allReduceRoute() : pg.backend();
    boolean ringRouted = route.startsWith("ring");
    // Host-staged (also under a hierarchy across hosts): the chooser has no kernel to pick there.
    boolean staged = route.startsWith("staged");
    List<String> algos =
        pg.size() > 1 && !ringRouted && !staged && chooser != null ? algorithms : List.of("auto");
    out.printf("# rank %d: allReduce route %s%n", pg.rank(), route);
    long[] counts = {0, 1, 7, 4097, 1_000_003};
    for (String algo : algos) {
      choose(algo);
      for (DataType t : DataType.values()) {
        for (ReduceOp op : ReduceOp.values()) {
          for (long n : counts) {
            if (!full && n > 4097 && op != ReduceOp.SUM) {
              continue;
            }
            allReduce(algo, t, op, n, 0, true);
            allReduce(algo, t, op, n, 0, false);
          }
          allReduce(algo, t, op, 4097, 1, false); // not 16-byte aligned: the scalar path
        }
      }
      // Larger than one launch (several pieces through the scratch slots; ll runs them as
      // one-shot).
      long big = pg.maxLaunchBytes() == Long.MAX_VALUE ? 1 << 24 : pg.maxLaunchBytes();
      allReduce(algo, DataType.FLOAT32, ReduceOp.SUM, 2 * big / 4 + 12_345, 0, true);
      allReduce(algo, DataType.BFLOAT16, ReduceOp.AVG, big / 2 + 777, 0, false);
      allReduce(algo, DataType.INT64, ReduceOp.MAX, big / 8 + 3, 0, false);
      if (full && (algo.equals("ring") || ringRouted)) {
        allReduce(algo, DataType.FLOAT32, ReduceOp.SUM, 1L << 26, 0, false); // 256 MiB
        allReduce(algo, DataType.BFLOAT16, ReduceOp.SUM, 1L << 27, 0, true); // 256 MiB
      }
    }
    choose("auto");
    if (full) {
      // 1 GiB (the largest size): several launches through the scratch.
      allReduce("auto", DataType.FLOAT32, ReduceOp.SUM, 1L << 28, 0, true);
    }
    new CollectiveCheck(pg, this, stream).runAll(full);
    barrier();
  }

  private void choose(String algo) {
    if (chooser != null) {
      chooser.set(algo);
    }
  }

  void report(String what, String detail) {
    cases++;
    boolean ok = detail == null;
    if (!ok) {
      failed++;
    }
    if (pg.rank() == 0 || !ok) {
      out.printf("%-52s %s%n", what, ok ? "PASS" : "FAIL rank " + pg.rank() + ": " + detail);
    }
  }

  void allReduce(String algo, DataType t, ReduceOp op, long n, long offsetElems, boolean inPlace) {
    long s = seed++;
    long bytes = t.bytesFor(n + offsetElems);
    String what =
        String.format(
            "allReduce %-7s %-7s %-8s %9d %s%s",
            algo,
            op,
            t,
            n,
            inPlace ? "in-place" : "out-of-place",
            offsetElems > 0 ? " unaligned" : "");
    try (DeviceMemory a = new DeviceMemory(bytes);
        DeviceMemory b = inPlace ? null : new DeviceMemory(bytes)) {
      ByteBuffer host = DeviceMemory.host(bytes);
      ByteBuffer mine =
          host.slice(Math.toIntExact(t.bytesFor(offsetElems)), Math.toIntExact(t.bytesFor(n)))
              .order(host.order());
      for (long i = 0; i < n; i++) {
        TestValues.put(mine, i, t, TestValues.value(s, pg.rank(), i, t, op));
      }
      a.upload(host, bytes);
      long off = t.bytesFor(offsetElems);
      DeviceBuffer in = new DeviceBuffer(a.address + off, pg.deviceIndex(), stream, n, t);
      DeviceBuffer res = in;
      if (!inPlace) {
        b.fill(POISON);
        res = new DeviceBuffer(b.address + off, pg.deviceIndex(), stream, n, t);
      }
      pg.allReduce(in, res, op).await();
      ByteBuffer got = DeviceMemory.host(bytes);
      (inPlace ? a : b).download(got, bytes);
      ByteBuffer gotSlice =
          got.slice(Math.toIntExact(off), Math.toIntExact(t.bytesFor(n))).order(got.order());
      String bad = compare(gotSlice, s, t, op, n);
      if (bad == null && !inPlace) {
        ByteBuffer after = DeviceMemory.host(bytes);
        a.download(after, bytes);
        if (!after.equals(host)) {
          bad = "the input changed";
        }
      }
      report(what, bad);
    } catch (RuntimeException e) {
      report(what, e.toString());
    }
  }

  private String compare(ByteBuffer got, long s, DataType t, ReduceOp op, long n) {
    int ranks = pg.size();
    long wrong = 0;
    String first = null;
    for (long i = 0; i < n; i++) {
      double ref = TestValues.reference(s, ranks, i, t, op);
      double g = TestValues.get(got, i, t);
      double tol = TestValues.tolerance(s, ranks, i, t, op, ref);
      if (!(Math.abs(g - ref) <= tol)) {
        if (wrong++ == 0) {
          first = "element " + i + " is " + g + ", expected " + ref + " +- " + tol;
        }
      }
    }
    return wrong == 0 ? null : wrong + " of " + n + " elements wrong; " + first;
  }

  void barrier() {
    List<String> errors = new ArrayList<>();
    try {
      for (int i = 0; i < 10; i++) {
        pg.barrier().await();
      }
    } catch (RuntimeException e) {
      errors.add(e.toString());
    }
    report("barrier x10", errors.isEmpty() ? null : errors.get(0));
  }
}
