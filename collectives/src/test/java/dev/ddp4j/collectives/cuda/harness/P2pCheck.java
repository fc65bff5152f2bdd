package dev.ddp4j.collectives.cuda.harness;

import dev.ddp4j.CollectiveMismatchException;
import dev.ddp4j.DataType;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.gpu.DeviceGroup;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * One rank's run of point-to-point, reduce, gather, scatter and all-to-all on device buffers: sizes
 * 0, 1, odd and several mailbox chunks (1 MiB each) up to 64 MiB, every rank's bytes a pattern each
 * rank can recompute, outputs poisoned first. Point-to-point: a ring (send to the next rank,
 * receive from the previous), two ranks that both isend 32 MiB before either irecvs, receives
 * posted before their sends, several messages to one peer kept in order with their per-pair
 * numbers, and last a send and receive of different shapes, which must fail on both ranks naming
 * both shapes. Reduce against the float64 reference on root, other ranks' buffers unchanged. With
 * {@code p2p} false (a route without a mailbox) isend must refuse naming the fix.
 */
final class P2pCheck {

  private static final byte POISON = 0x5a;

  private final DeviceGroup pg;
  private final PrintStream out;
  private final long stream;
  private final int me;
  private final int size;
  private final long[] sentTo;
  private final long[] receivedFrom;
  private long seed = 7_000_000;
  private int cases;
  private int failed;

  P2pCheck(DeviceGroup pg, PrintStream out) {
    this.pg = pg;
    this.out = out;
    this.me = pg.rank();
    this.size = pg.size();
    this.sentTo = new long[size];
    this.receivedFrom = new long[size];
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

  void runAll(boolean p2p) {
    if (size > 1 && p2p) {
      for (DataType t : new DataType[] {DataType.FLOAT32, DataType.BFLOAT16, DataType.INT8}) {
        for (long n : new long[] {0, 1, 7, 4097, 1_000_003}) {
          ring(t, n);
        }
      }
      ring(DataType.FLOAT32, 1L << 24); // 64 MiB: 64 chunks through 2 slots
      bothSendFirst(DataType.FLOAT32, 1L << 23);
      receiveFirst(DataType.INT32, 3_000_001);
      inOrder(DataType.FLOAT64, 5);
    } else if (size > 1) {
      refused();
    }
    for (DataType t : new DataType[] {DataType.FLOAT32, DataType.BFLOAT16, DataType.INT64}) {
      for (long n : new long[] {0, 1, 4097, 700_001}) {
        for (ReduceOp op : new ReduceOp[] {ReduceOp.SUM, ReduceOp.MAX}) {
          reduce(t, op, n, 0);
        }
        reduce(t, ReduceOp.SUM, n, size - 1);
        gather(t, n, 0, false);
        gather(t, n, size - 1, true);
        scatter(t, n, 0);
        scatter(t, n, size / 2);
        allToAll(t, n);
      }
    }
    gather(DataType.FLOAT32, 1L << 23, size / 2, false);
    allToAll(DataType.UINT8, 5L << 20);
    if (size > 1 && p2p) {
      mismatch();
    }
  }

  private void report(String what, String detail) {
    cases++;
    boolean ok = detail == null;
    if (!ok) {
      failed++;
    }
    if (me == 0 || !ok) {
      out.printf("%-52s %s%n", what, ok ? "PASS" : "FAIL rank " + me + ": " + detail);
    }
  }

  /** The bytes rank {@code who} sends under {@code s}, recomputable by every rank. */
  private static ByteBuffer pattern(long s, int who, long bytes) {
    ByteBuffer b = DeviceMemory.host(bytes);
    for (int j = 0; j < bytes; j++) {
      b.put(j, (byte) (j * 31 + who * 131 + s * 7 + (j >>> 9)));
    }
    return b;
  }

  private DeviceBuffer on(DeviceMemory m, long n, DataType t) {
    return new DeviceBuffer(m.address, pg.deviceIndex(), stream, n, t);
  }

  /** Null if {@code bytes} at {@code address} equal {@code expected}'s first bytes, else why. */
  private static String compare(long address, long offset, ByteBuffer expected, long bytes) {
    ByteBuffer got = DeviceMemory.host(bytes);
    DeviceMemory.download(got, address + offset, bytes);
    for (int j = 0; j < bytes; j++) {
      if (got.get(j) != expected.get(j)) {
        return "byte " + (offset + j) + " is " + got.get(j) + ", expected " + expected.get(j);
      }
    }
    return null;
  }

  private String numbered(Work w, long expected, String side) {
    return w.sequenceNumber() == expected
        ? null
        : side + " has number " + w.sequenceNumber() + ", expected " + expected + " (per pair)";
  }

  void ring(DataType t, long n) {
    long s = seed++;
    int next = (me + 1) % size;
    int prev = (me - 1 + size) % size;
    long bytes = t.bytesFor(n);
    String what = String.format("isend/irecv ring %-8s %9d", t, n);
    try (DeviceMemory src = new DeviceMemory(bytes);
        DeviceMemory dst = new DeviceMemory(bytes)) {
      src.upload(pattern(s, me, bytes), bytes);
      dst.fill(POISON);
      Work send = pg.isend(on(src, n, t), next);
      Work recv = pg.irecv(on(dst, n, t), prev);
      recv.await();
      send.await();
      String bad = numbered(send, sentTo[next]++, "isend");
      String order = numbered(recv, receivedFrom[prev]++, "irecv");
      bad = bad != null ? bad : order;
      report(what, bad != null ? bad : compare(dst.address, 0, pattern(s, prev, bytes), bytes));
    } catch (RuntimeException e) {
      report(what, e.toString());
    }
  }

  /** Ranks 2k and 2k+1 both isend, then both irecv: no rank may wait for the other's receive. */
  void bothSendFirst(DataType t, long n) {
    pairwise(t, n, true, "both isend first");
  }

  void receiveFirst(DataType t, long n) {
    pairwise(t, n, false, "both irecv first");
  }

  private void pairwise(DataType t, long n, boolean sendFirst, String name) {
    long s = seed++;
    int partner = me ^ 1;
    String what = String.format("%-20s %-8s %9d", name, t, n);
    if (partner >= size) {
      return; // the odd rank out of an odd group has no partner
    }
    long bytes = t.bytesFor(n);
    try (DeviceMemory src = new DeviceMemory(bytes);
        DeviceMemory dst = new DeviceMemory(bytes)) {
      src.upload(pattern(s, me, bytes), bytes);
      dst.fill(POISON);
      Work first;
      Work second;
      if (sendFirst) {
        first = pg.isend(on(src, n, t), partner);
        second = pg.irecv(on(dst, n, t), partner);
      } else {
        first = pg.irecv(on(dst, n, t), partner);
        second = pg.isend(on(src, n, t), partner);
      }
      first.await();
      second.await();
      sentTo[partner]++;
      receivedFrom[partner]++;
      report(what, compare(dst.address, 0, pattern(s, partner, bytes), bytes));
    } catch (RuntimeException e) {
      report(what, e.toString());
    }
  }

  /** Several messages to the next rank, all posted before any is awaited, arrive in order. */
  void inOrder(DataType t, int messages) {
    int next = (me + 1) % size;
    int prev = (me - 1 + size) % size;
    long n = 300_007;
    long bytes = t.bytesFor(n);
    long s0 = seed;
    seed += messages;
    String what = String.format("isend x%d in order  %-8s %9d", messages, t, n);
    DeviceMemory[] src = new DeviceMemory[messages];
    DeviceMemory[] dst = new DeviceMemory[messages];
    try {
      Work[] sends = new Work[messages];
      Work[] recvs = new Work[messages];
      for (int k = 0; k < messages; k++) {
        src[k] = new DeviceMemory(bytes);
        dst[k] = new DeviceMemory(bytes);
        src[k].upload(pattern(s0 + k, me, bytes), bytes);
        dst[k].fill(POISON);
      }
      for (int k = 0; k < messages; k++) {
        recvs[k] = pg.irecv(on(dst[k], n, t), prev);
      }
      for (int k = 0; k < messages; k++) {
        sends[k] = pg.isend(on(src[k], n, t), next);
      }
      String bad = null;
      for (int k = 0; k < messages; k++) {
        sends[k].await();
        recvs[k].await();
        String b = numbered(recvs[k], receivedFrom[prev]++, "irecv " + k);
        String nb = numbered(sends[k], sentTo[next]++, "isend " + k);
        b = b != null ? b : nb;
        b = b != null ? b : compare(dst[k].address, 0, pattern(s0 + k, prev, bytes), bytes);
        bad = bad != null ? bad : b == null ? null : "message " + k + ": " + b;
      }
      report(what, bad);
    } catch (RuntimeException e) {
      report(what, e.toString());
    } finally {
      for (int k = 0; k < messages; k++) {
        if (src[k] != null) {
          src[k].close();
        }
        if (dst[k] != null) {
          dst[k].close();
        }
      }
    }
  }

  /** Rank 2k sends 10 floats, rank 2k+1 expects 12: both fail naming both shapes. */
  void mismatch() {
    int partner = me ^ 1;
    if (partner >= size) {
      return;
    }
    String what = "isend/irecv of different shapes";
    boolean sender = (me & 1) == 0;
    long n = sender ? 10 : 12;
    try (DeviceMemory m = new DeviceMemory(DataType.FLOAT32.bytesFor(12))) {
      Work w =
          sender
              ? pg.isend(on(m, n, DataType.FLOAT32), partner)
              : pg.irecv(on(m, n, DataType.FLOAT32), partner);
      try {
        w.await();
        report(what, "completed, expected a CollectiveMismatchException");
      } catch (CollectiveMismatchException e) {
        boolean names =
            e.getMessage().contains("10 FLOAT32") && e.getMessage().contains("12 FLOAT32");
        report(what, names ? null : "message does not name both shapes: " + e.getMessage());
        if (me == 0) {
          out.println("  " + e.getMessage());
        }
      }
    } catch (RuntimeException e) {
      report(what, e.toString());
    }
  }

  /** Without a mailbox isend must refuse, naming what works instead. */
  void refused() {
    String what = "isend refused without peer memory";
    try (DeviceMemory m = new DeviceMemory(16)) {
      pg.isend(on(m, 4, DataType.FLOAT32), (me + 1) % size);
      report(what, "isend was accepted");
    } catch (UnsupportedOperationException e) {
      report(
          what, e.getMessage().contains("send host buffers") ? null : "message: " + e.getMessage());
    } catch (RuntimeException e) {
      report(what, e.toString());
    }
  }

  void reduce(DataType t, ReduceOp op, long n, int root) {
    long s = seed++;
    long bytes = t.bytesFor(n);
    String what = String.format("reduce %-4s %-8s %9d root %d", op, t, n, root);
    try (DeviceMemory a = new DeviceMemory(bytes)) {
      ByteBuffer host = DeviceMemory.host(bytes);
      for (long i = 0; i < n; i++) {
        TestValues.put(host, i, t, TestValues.value(s, me, i, t, op));
      }
      a.upload(host, bytes);
      pg.reduce(on(a, n, t), root, op).await();
      String bad = null;
      if (me == root) {
        ByteBuffer got = DeviceMemory.host(bytes);
        a.download(got, bytes);
        long wrong = 0;
        for (long i = 0; i < n; i++) {
          double ref = TestValues.reference(s, size, i, t, op);
          double v = TestValues.get(got, i, t);
          double tol = TestValues.tolerance(s, size, i, t, op, ref);
          if (!(Math.abs(v - ref) <= tol) && wrong++ == 0) {
            bad = "element " + i + " is " + v + ", expected " + ref + " +- " + tol;
          }
        }
      } else {
        bad = compare(a.address, 0, host, bytes);
        bad = bad == null ? null : "a non-root buffer changed: " + bad;
      }
      report(what, bad);
    } catch (RuntimeException e) {
      report(what, e.toString());
    }
  }

  /** {@code inPlace}: root's input is block root of its output. */
  void gather(DataType t, long n, int root, boolean inPlace) {
    long s = seed++;
    long bytes = t.bytesFor(n);
    String what =
        String.format("gather %-8s %9d root %d%s", t, n, root, inPlace ? " in-place" : "");
    boolean isRoot = me == root;
    try (DeviceMemory whole = isRoot ? new DeviceMemory(bytes * size) : null;
        DeviceMemory part = isRoot && inPlace ? null : new DeviceMemory(bytes)) {
      DeviceBuffer in;
      if (isRoot) {
        whole.fill(POISON);
      }
      if (part == null) {
        DeviceMemory.upload(pattern(s, me, bytes), whole.address + me * bytes, bytes);
        in = new DeviceBuffer(whole.address + me * bytes, pg.deviceIndex(), stream, n, t);
      } else {
        part.upload(pattern(s, me, bytes), bytes);
        in = on(part, n, t);
      }
      pg.gather(in, isRoot ? on(whole, n * size, t) : null, root).await();
      String bad = null;
      for (int k = 0; isRoot && k < size && bad == null; k++) {
        bad = compare(whole.address, k * bytes, pattern(s, k, bytes), bytes);
      }
      report(what, bad);
    } catch (RuntimeException e) {
      report(what, e.toString());
    }
  }

  void scatter(DataType t, long n, int root) {
    long s = seed++;
    long bytes = t.bytesFor(n);
    String what = String.format("scatter %-8s %9d root %d", t, n, root);
    boolean isRoot = me == root;
    try (DeviceMemory whole = isRoot ? new DeviceMemory(bytes * size) : null;
        DeviceMemory part = new DeviceMemory(bytes)) {
      if (isRoot) {
        for (int k = 0; k < size; k++) {
          DeviceMemory.upload(pattern(s, k, bytes), whole.address + k * bytes, bytes);
        }
      }
      part.fill(POISON);
      pg.scatter(isRoot ? on(whole, n * size, t) : null, on(part, n, t), root).await();
      report(what, compare(part.address, 0, pattern(s, me, bytes), bytes));
    } catch (RuntimeException e) {
      report(what, e.toString());
    }
  }

  /** {@code n} elements per block; rank r's block j holds pattern r x size + j. */
  void allToAll(DataType t, long n) {
    long s = seed++;
    long block = t.bytesFor(n);
    String what = String.format("allToAll %-8s %9d per block", t, n);
    try (DeviceMemory in = new DeviceMemory(block * size);
        DeviceMemory outMem = new DeviceMemory(block * size)) {
      for (int j = 0; j < size; j++) {
        DeviceMemory.upload(pattern(s, me * size + j, block), in.address + j * block, block);
      }
      outMem.fill(POISON);
      pg.allToAll(on(in, n * size, t), on(outMem, n * size, t)).await();
      String bad = null;
      for (int k = 0; k < size && bad == null; k++) {
        bad = compare(outMem.address, k * block, pattern(s, k * size + me, block), block);
      }
      report(what, bad);
    } catch (RuntimeException e) {
      report(what, e.toString());
    }
  }
}
