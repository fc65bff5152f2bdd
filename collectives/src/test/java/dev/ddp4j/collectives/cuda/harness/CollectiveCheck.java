package dev.ddp4j.collectives.cuda.harness;

import dev.ddp4j.DataType;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.collectives.gpu.DeviceGroup;
import java.nio.ByteBuffer;

/**
 * One rank's correctness run of reduceScatter, allGather and broadcast: every dtype (and every op
 * for reduceScatter) at 0, 1, odd and unaligned sizes and at more than one scratch slot, in place
 * and out of place, with inputs every rank can recompute (TestValues), a float64 reference for
 * reductions, outputs poisoned before each run and out-of-place inputs checked unchanged. Results
 * go through {@link AllReduceCheck#report}.
 */
final class CollectiveCheck {

  private static final byte POISON = 0x7f;

  private final DeviceGroup pg;
  private final AllReduceCheck log;
  private final long stream;
  private long seed = 1_000_000;

  CollectiveCheck(DeviceGroup pg, AllReduceCheck log, long stream) {
    this.pg = pg;
    this.log = log;
    this.stream = stream;
  }

  void runAll(boolean full) {
    long[] counts = {0, 1, 7, 4097, 1_000_003};
    long slot = pg.maxLaunchBytes() == Long.MAX_VALUE ? 1 << 24 : pg.maxLaunchBytes();
    for (DataType t : DataType.values()) {
      for (ReduceOp op : ReduceOp.values()) {
        for (long n : counts) {
          if (!full && n > 4097 && op != ReduceOp.SUM) {
            continue;
          }
          reduceScatter(t, op, n, 0, true);
          reduceScatter(t, op, n, 0, false);
        }
        reduceScatter(t, op, 4097, 1, false);
      }
      for (long n : counts) {
        allGather(t, n, 0, true);
        allGather(t, n, 0, false);
        broadcast(t, n, 0);
        broadcast(t, n, pg.size() - 1);
      }
      allGather(t, 4097, 1, false);
      broadcast(t, 4097 + 1, pg.size() / 2);
    }
    // More than one launch: blocks larger than a scratch slot.
    reduceScatter(DataType.FLOAT32, ReduceOp.SUM, slot / 4 + 12_345, 0, false);
    reduceScatter(DataType.BFLOAT16, ReduceOp.AVG, slot / 2 + 777, 0, true);
    allGather(DataType.INT32, slot / 4 + 777, 0, false);
    allGather(DataType.FLOAT16, slot / 2 + 3, 0, true);
    broadcast(DataType.FLOAT32, 2 * slot / 4 + 5, pg.size() - 1);
  }

  /** Rank's input of {@code blocks x n} elements; block rank of the sum in out. */
  void reduceScatter(DataType t, ReduceOp op, long n, long offsetElems, boolean inPlace) {
    long s = seed++;
    int ranks = pg.size();
    int me = pg.rank();
    long total = n * ranks;
    String what =
        String.format(
            "reduceScatter %-7s %-8s %9d %s%s",
            op, t, n, inPlace ? "in-place" : "out-of-place", offsetElems > 0 ? " unaligned" : "");
    long off = t.bytesFor(offsetElems);
    long inBytes = off + t.bytesFor(total);
    try (DeviceMemory a = new DeviceMemory(inBytes);
        DeviceMemory b = inPlace ? null : new DeviceMemory(off + t.bytesFor(n))) {
      ByteBuffer host = DeviceMemory.host(inBytes);
      ByteBuffer mine = host.slice(Math.toIntExact(off), Math.toIntExact(t.bytesFor(total)));
      mine.order(host.order());
      for (long i = 0; i < total; i++) {
        TestValues.put(mine, i, t, TestValues.value(s, me, i, t, op));
      }
      a.upload(host, inBytes);
      DeviceBuffer in = new DeviceBuffer(a.address + off, pg.deviceIndex(), stream, total, t);
      DeviceBuffer out;
      if (inPlace) {
        out = in.slice(me * n, n);
      } else {
        b.fill(POISON);
        out = new DeviceBuffer(b.address + off, pg.deviceIndex(), stream, n, t);
      }
      pg.reduceScatter(in, out, op).await();
      ByteBuffer got = DeviceMemory.host(t.bytesFor(n));
      DeviceMemory.download(got, out.devicePointer(), t.bytesFor(n));
      String bad = null;
      long wrong = 0;
      for (long i = 0; i < n; i++) {
        long g = me * n + i;
        double ref = TestValues.reference(s, ranks, g, t, op);
        double v = TestValues.get(got, i, t);
        double tol = TestValues.tolerance(s, ranks, g, t, op, ref);
        if (!(Math.abs(v - ref) <= tol) && wrong++ == 0) {
          bad = "element " + i + " is " + v + ", expected " + ref + " +- " + tol;
        }
      }
      if (bad != null) {
        bad = wrong + " of " + n + " elements wrong; first: " + bad;
      } else if (!inPlace) {
        bad = unchanged(a, host, inBytes);
      }
      log.report(what, bad);
    } catch (RuntimeException e) {
      log.report(what, e.toString());
    }
  }

  void allGather(DataType t, long n, long offsetElems, boolean inPlace) {
    long s = seed++;
    int ranks = pg.size();
    int me = pg.rank();
    String what =
        String.format(
            "allGather %-8s %9d per rank %s%s",
            t, n, inPlace ? "in-place" : "out-of-place", offsetElems > 0 ? " unaligned" : "");
    long off = t.bytesFor(offsetElems);
    long part = t.bytesFor(n);
    try (DeviceMemory whole = new DeviceMemory(off + part * ranks);
        DeviceMemory a = inPlace ? null : new DeviceMemory(off + part)) {
      ByteBuffer host = DeviceMemory.host(part);
      for (long i = 0; i < n; i++) {
        TestValues.put(host, i, t, TestValues.value(s, me, i, t, ReduceOp.SUM));
      }
      whole.fill(POISON);
      DeviceBuffer out =
          new DeviceBuffer(whole.address + off, pg.deviceIndex(), stream, n * ranks, t);
      DeviceBuffer in;
      if (inPlace) {
        in = out.slice(me * n, n);
      } else {
        in = new DeviceBuffer(a.address + off, pg.deviceIndex(), stream, n, t);
      }
      DeviceMemory.upload(host, in.devicePointer(), part);
      pg.allGather(in, out).await();
      ByteBuffer all = DeviceMemory.host(part * ranks);
      DeviceMemory.download(all, out.devicePointer(), part * ranks);
      String bad = null;
      for (int r = 0; r < ranks && bad == null; r++) {
        for (long i = 0; i < n && bad == null; i++) {
          double want = TestValues.value(s, r, i, t, ReduceOp.SUM);
          double g = TestValues.get(all, r * n + i, t);
          if (Double.doubleToLongBits(g) != Double.doubleToLongBits(want)) {
            bad = "block " + r + " element " + i + " is " + g + ", expected " + want;
          }
        }
      }
      if (bad == null && !inPlace) {
        ByteBuffer after = DeviceMemory.host(part);
        DeviceMemory.download(after, in.devicePointer(), part);
        bad = after.equals(host) ? null : "the input changed";
      }
      log.report(what, bad);
    } catch (RuntimeException e) {
      log.report(what, e.toString());
    }
  }

  void broadcast(DataType t, long n, int root) {
    long s = seed++;
    int me = pg.rank();
    String what = String.format("broadcast %-8s %9d root %d", t, n, root);
    long bytes = t.bytesFor(n);
    try (DeviceMemory a = new DeviceMemory(bytes)) {
      ByteBuffer host = DeviceMemory.host(bytes);
      for (long i = 0; i < n; i++) {
        TestValues.put(host, i, t, TestValues.value(s, root, i, t, ReduceOp.SUM));
      }
      if (me == root) {
        a.upload(host, bytes);
      } else {
        a.fill(POISON);
      }
      pg.broadcast(new DeviceBuffer(a.address, pg.deviceIndex(), stream, n, t), root).await();
      ByteBuffer got = DeviceMemory.host(bytes);
      a.download(got, bytes);
      String bad = null;
      for (long i = 0; i < n && bad == null; i++) {
        double want = TestValues.get(host, i, t);
        double g = TestValues.get(got, i, t);
        if (Double.doubleToLongBits(g) != Double.doubleToLongBits(want)) {
          bad = "element " + i + " is " + g + ", expected " + want;
        }
      }
      log.report(what, bad);
    } catch (RuntimeException e) {
      log.report(what, e.toString());
    }
  }

  private static String unchanged(DeviceMemory a, ByteBuffer host, long bytes) {
    ByteBuffer after = DeviceMemory.host(bytes);
    a.download(after, bytes);
    return after.equals(host) ? null : "the input changed";
  }
}
