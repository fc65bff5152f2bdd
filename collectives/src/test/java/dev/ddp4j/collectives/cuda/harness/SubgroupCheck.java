package dev.ddp4j.collectives.cuda.harness;

import dev.ddp4j.DataType;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Store;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.cuda.CudaProcessGroup;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.gpu.DeviceGroup;
import dev.ddp4j.collectives.gpu.HostDeviceGroup;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Optional;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * {@code subgroups}: the subgroups of the group {@code Ddp.init()} returns on a GPU backend, on
 * real GPUs. Splits the ranks by parity and checks device and host all-reduces of each half against
 * its own members' sum, prints each subgroup's route (its own plan), closes it and checks the
 * parent, then a group of every rank but 0 in reverse order with a nested pair, closed by closing
 * the parent. Counts and prints failures; a setup error is thrown.
 */
final class SubgroupCheck {

  private final PrintStream out;
  private final long stream;
  private int failed;

  private SubgroupCheck(PrintStream out) {
    this.out = out;
    CUstream s = new CUstream();
    Cu.check(
        JCudaDriver.cuStreamCreate(s, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    this.stream = Cu.handle(s);
  }

  static int run(DeviceGroup pg, WorkerEnvironment w, Store store, Duration timeout) {
    SubgroupCheck c = new SubgroupCheck(System.out);
    c.all(HostDeviceGroup.over(pg, w, store, timeout, dev.ddp4j.spi.Settings.process()));
    System.out.printf("# rank %d: subgroups, %d failed%n", w.rank(), c.failed);
    return c.failed;
  }

  private void all(HostDeviceGroup both) {
    int rank = both.rank();
    int n = both.size();
    HostDeviceGroup half = (HostDeviceGroup) both.split(rank % 2, rank).orElseThrow();
    int halfSum = 0;
    for (int r = rank % 2; r < n; r += 2) {
      halfSum += r + 1;
    }
    out.printf(
        "# rank %d: split half rank %d/%d, route %s%n",
        rank, half.rank(), half.size(), route(half));
    for (int count : new int[] {1000, 1 << 20}) {
      expect("split device " + count, deviceSum(half, rank + 1, count), halfSum);
    }
    expect("split host", hostSum(half, rank + 1), halfSum);
    half.close();
    expect(
        "parent device after the split closed",
        deviceSum(both, rank + 1, 1 << 16),
        n * (n + 1) / 2);

    // Every rank but 0, in reverse (subgroup rank 0 is parent rank n-1); on one rank, rank 0 alone.
    int[] others = new int[Math.max(1, n - 1)];
    for (int i = 0; i < n - 1; i++) {
      others[i] = n - 1 - i;
    }
    boolean member = n == 1 || rank != 0;
    Optional<ProcessGroup> rest = both.newGroup(others);
    expect("member of newGroup", rest.isPresent() ? 1 : 0, member ? 1 : 0);
    if (member && rest.isPresent()) {
      ProcessGroup g = rest.get();
      expect("newGroup rank", g.rank(), n == 1 ? 0 : n - 1 - rank);
      expect("newGroup device", deviceSum(g, rank + 1, 4096), n == 1 ? 1 : n * (n + 1) / 2 - 1);
      if (g.size() >= 2) {
        Optional<ProcessGroup> pair = g.newGroup(0, 1); // parent ranks n-1, n-2
        if (pair.isPresent()) {
          expect("nested device", deviceSum(pair.get(), rank + 1, 4096), n + (n - 1));
          expect("nested host", hostSum(pair.get(), rank + 1), n + (n - 1));
          out.printf("# rank %d: nested pair route %s%n", rank, route(pair.get()));
        }
      }
    }
    both.close(); // closes the newGroup and its nested pair first
  }

  private static String route(ProcessGroup g) {
    DeviceGroup d = ((HostDeviceGroup) g).device();
    return d instanceof CudaProcessGroup c
        ? c.allReduceRoute() + ", plan of " + c.plan().ranks() + " ranks"
        : d.backend();
  }

  private void expect(String what, long got, long want) {
    if (got != want) {
      failed++;
      out.printf("FAIL %s: got %d, expected %d%n", what, got, want);
    } else {
      out.printf("ok   %s = %d%n", what, got);
    }
  }

  /** All-reduces {@code count} floats of {@code value} on the device; element 0 if all agree. */
  private long deviceSum(ProcessGroup g, float value, int count) {
    try (DeviceMemory m = new DeviceMemory(4L * count)) {
      ByteBuffer h = DeviceMemory.host(4L * count);
      for (int i = 0; i < count; i++) {
        h.putFloat(4 * i, value);
      }
      m.upload(h, 4L * count);
      int device = ((HostDeviceGroup) g).deviceIndex();
      DeviceBuffer b = new DeviceBuffer(m.address, device, stream, count, DataType.FLOAT32);
      g.allReduce(b, ReduceOp.SUM).await();
      DeviceMemory.download(h, m.address, 4L * count);
      float first = h.getFloat(0);
      for (int i = 0; i < count; i++) {
        if (h.getFloat(4 * i) != first) {
          return -1_000_000 - i;
        }
      }
      return (long) first;
    }
  }

  private static long hostSum(ProcessGroup g, float value) {
    float[] v = {value, value};
    g.allReduce(HostBuffer.of(v), ReduceOp.SUM).await();
    return (long) v[1];
  }
}
