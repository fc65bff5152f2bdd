package dev.ddp4j.collectives.cpu;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;

import dev.ddp4j.DataType;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.collectives.reduce.HostMemory;
import dev.ddp4j.collectives.reduce.Reductions;
import dev.ddp4j.collectives.schedule.CollectiveKind;
import dev.ddp4j.collectives.schedule.RootedSchedules;
import dev.ddp4j.collectives.transport.PieceTag;

/**
 * The bodies of the cpu group's collectives, run on its progress thread: set up the working buffer
 * (copy an out-of-place input in; widen FLOAT16 / BFLOAT16 to fp32 so they are reduced in fp32 and
 * rounded once), run the schedule, finish (AVG's division, copying a block out). Owns the scratch
 * memory.
 */
final class CpuCollectives implements AutoCloseable {

  private final int rank;
  private final int size;
  private final ScheduleCache schedules;
  private final ProgramRunner runner;
  private final DirectAllReduce direct; // null unless the group may read peers' buffers directly
  private long scratch; // native working memory, grown on demand
  private long scratchBytes;

  CpuCollectives(
      int rank, int size, ScheduleCache schedules, ProgramRunner runner, DirectAllReduce direct) {
    this.direct = direct;
    this.rank = rank;
    this.size = size;
    this.schedules = schedules;
    this.runner = runner;
  }

  private long scratch(long bytes) {
    if (bytes > scratchBytes) {
      if (scratch != 0) {
        UNSAFE.freeMemory(scratch);
      }
      scratch = UNSAFE.allocateMemory(Math.max(bytes, 64));
      scratchBytes = Math.max(bytes, 64);
    }
    return scratch;
  }

  private static boolean half(DataType t) {
    return t == DataType.FLOAT16 || t == DataType.BFLOAT16;
  }

  /** What half types travel and sum as: float32, whose sums keep their precision. */
  private static DataType wire(DataType t) {
    return half(t) ? DataType.FLOAT32 : t;
  }

  /** Copies the first {@code count} elements of {@code from} to {@code to}, in the wire type. */
  private static void toWire(HostMemory from, long to, long count) {
    DataType t = from.dataType();
    if (half(t)) {
      Reductions.halfToFloat(t == DataType.BFLOAT16, from.base(), from.offset(), null, to, count);
    } else {
      UNSAFE.copyMemory(from.base(), from.offset(), null, to, t.bytesFor(count));
    }
  }

  /** Copies {@code count} wire-type elements at {@code from} into {@code to}, in its own type. */
  private static void fromWire(long from, HostMemory to, long count) {
    DataType t = to.dataType();
    if (half(t)) {
      Reductions.floatToHalf(t == DataType.BFLOAT16, null, from, to.base(), to.offset(), count);
    } else {
      UNSAFE.copyMemory(null, from, to.base(), to.offset(), t.bytesFor(count));
    }
  }

  private static boolean sameMemory(HostMemory a, HostMemory b) {
    return a.base() == b.base() && a.offset() == b.offset();
  }

  /**
   * {@code sharedIssued}: the group had allocated shared host memory when this all-reduce was
   * issued (then it may read peers' buffers through their mappings).
   */
  void allReduce(
      HostMemory in,
      HostMemory out,
      ReduceOp op,
      boolean sharedIssued,
      PieceTag tag,
      long deadlineNs,
      String what) {
    DataType type = in.dataType();
    long count = in.count();
    if (half(type)) {
      long work = scratch(count * 4);
      toWire(in, work, count);
      allReduce(count, DataType.FLOAT32, null, work, op, false, tag, deadlineNs, what);
      if (op == ReduceOp.AVG) {
        Reductions.divide(DataType.FLOAT32, null, work, count, size);
      }
      fromWire(work, out, count);
      return;
    }
    if (!sameMemory(in, out)) {
      out.copyFrom(in);
    }
    allReduce(count, type, out.base(), out.offset(), op, sharedIssued, tag, deadlineNs, what);
    if (op == ReduceOp.AVG) {
      Reductions.divide(type, out.base(), out.offset(), count, size);
    }
  }

  /**
   * The working buffer's all-reduce: direct reads of peers' buffers where the group agrees, else
   * the plan's program.
   */
  private void allReduce(
      long count,
      DataType wire,
      Object base,
      long offset,
      ReduceOp op,
      boolean sharedIssued,
      PieceTag tag,
      long deadlineNs,
      String what) {
    if (direct != null
        && direct.covers(count * wire.sizeBytes(), sharedIssued)
        && direct.run(base, offset, count, wire, op, tag, deadlineNs, what)) {
      return;
    }
    run(CollectiveKind.ALL_REDUCE, count, -1, wire, base, offset, op, tag, deadlineNs, what);
  }

  /** How many all-reduces ran through cross-memory attach on this rank. */
  long crossMemoryRuns() {
    return direct == null ? 0 : direct.crossMemoryRuns();
  }

  /** How many all-reduces ran through the mappings of shared host memory on this rank. */
  long sharedRuns() {
    return direct == null ? 0 : direct.sharedRuns();
  }

  void broadcast(HostMemory buffer, int root, PieceTag tag, long deadlineNs, String what) {
    run(
        CollectiveKind.BROADCAST,
        buffer.count(),
        root,
        buffer.dataType(),
        buffer.base(),
        buffer.offset(),
        null,
        tag,
        deadlineNs,
        what);
  }

  void allGather(HostMemory in, HostMemory out, PieceTag tag, long deadlineNs, String what) {
    long block = in.count();
    HostMemory mine = out.slice(block * rank, block);
    if (!sameMemory(in, mine)) {
      mine.copyFrom(in);
    }
    run(
        CollectiveKind.ALL_GATHER,
        block,
        -1,
        in.dataType(),
        out.base(),
        out.offset(),
        null,
        tag,
        deadlineNs,
        what);
  }

  void reduceScatter(
      HostMemory in, HostMemory out, ReduceOp op, PieceTag tag, long deadlineNs, String what) {
    DataType wire = wire(in.dataType());
    long block = out.count();
    long work = scratch(in.count() * wire.sizeBytes());
    toWire(in, work, in.count());
    run(CollectiveKind.REDUCE_SCATTER, block, -1, wire, null, work, op, tag, deadlineNs, what);
    long mine = work + block * rank * wire.sizeBytes();
    if (op == ReduceOp.AVG) {
      Reductions.divide(wire, null, mine, block, size);
    }
    fromWire(mine, out, block);
  }

  void barrier(PieceTag tag, long deadlineNs, String what) {
    long work = scratch(8);
    UNSAFE.putByte(work, (byte) 0);
    run(
        CollectiveKind.ALL_REDUCE,
        1,
        -1,
        DataType.INT8,
        null,
        work,
        ReduceOp.MAX,
        tag,
        deadlineNs,
        what);
  }

  /**
   * Reduces every rank's {@code buffer} into the root's; elsewhere the chain works in scratch, so
   * the caller's buffer is left as it was.
   */
  void reduce(
      HostMemory buffer, int root, ReduceOp op, PieceTag tag, long deadlineNs, String what) {
    DataType type = buffer.dataType();
    long count = buffer.count();
    DataType wire = wire(type);
    Object base = null;
    long offset;
    if (rank == root && !half(type)) {
      base = buffer.base();
      offset = buffer.offset();
    } else {
      // Room for one element more, which the chain's head receives (RootedSchedules).
      offset = scratch((count + 1) * wire.sizeBytes());
      toWire(buffer, offset, count);
    }
    if (size > 1) {
      CompiledProgram program =
          schedules.program(RootedSchedules.Kind.REDUCE, count, root, wire.sizeBytes());
      runner.run(program, base, offset, wire, op, tag, deadlineNs, what);
    }
    if (rank != root) {
      return;
    }
    if (op == ReduceOp.AVG) {
      Reductions.divide(wire, base, offset, count, size);
    }
    if (half(type)) {
      fromWire(offset, buffer, count);
    }
  }

  /** {@code output} is null except on the root. */
  void gather(
      HostMemory input, HostMemory output, int root, PieceTag tag, long deadlineNs, String what) {
    rootedBlocks(RootedSchedules.Kind.GATHER, input, output, root, tag, deadlineNs, what);
  }

  /** {@code input} is null except on the root. */
  void scatter(
      HostMemory input, HostMemory output, int root, PieceTag tag, long deadlineNs, String what) {
    rootedBlocks(RootedSchedules.Kind.SCATTER, output, input, root, tag, deadlineNs, what);
  }

  /**
   * Gather or scatter: {@code block} is this rank's own block, {@code whole} the root's n blocks
   * (null elsewhere). The root's own block never travels: it is copied in (gather) or out (scatter)
   * here, and the root's program works in {@code whole}.
   */
  private void rootedBlocks(
      RootedSchedules.Kind kind,
      HostMemory block,
      HostMemory whole,
      int root,
      PieceTag tag,
      long deadlineNs,
      String what) {
    long count = block.count();
    HostMemory work = block;
    if (rank == root) {
      work = whole;
      HostMemory mine = whole.slice(count * rank, count);
      if (!sameMemory(block, mine)) {
        if (kind == RootedSchedules.Kind.GATHER) {
          mine.copyFrom(block);
        } else {
          block.copyFrom(mine);
        }
      }
    }
    runRooted(kind, count, root, work, tag, deadlineNs, what);
  }

  /** In scratch laid out as [input blocks | output blocks]: the runner has one working buffer. */
  void allToAll(HostMemory input, HostMemory output, PieceTag tag, long deadlineNs, String what) {
    DataType type = input.dataType();
    long bytes = input.sizeBytes();
    long blockBytes = bytes / size;
    long work = scratch(2 * bytes);
    UNSAFE.copyMemory(input.base(), input.offset(), null, work, bytes);
    long mine = rank * blockBytes;
    UNSAFE.copyMemory(null, work + mine, null, work + bytes + mine, blockBytes);
    HostMemory all = HostMemory.ofAddress(work, 2 * bytes, type);
    runRooted(
        RootedSchedules.Kind.ALL_TO_ALL, input.count() / size, -1, all, tag, deadlineNs, what);
    UNSAFE.copyMemory(null, work + bytes, output.base(), output.offset(), bytes);
  }

  private void runRooted(
      RootedSchedules.Kind kind,
      long count,
      int root,
      HostMemory work,
      PieceTag tag,
      long deadlineNs,
      String what) {
    if (size == 1) {
      return;
    }
    DataType type = work.dataType();
    CompiledProgram program = schedules.program(kind, count, root, type.sizeBytes());
    runner.run(program, work.base(), work.offset(), type, null, tag, deadlineNs, what);
  }

  private void run(
      CollectiveKind kind,
      long count,
      int root,
      DataType wire,
      Object base,
      long offset,
      ReduceOp op,
      PieceTag tag,
      long deadlineNs,
      String what) {
    if (size == 1) {
      return;
    }
    CompiledProgram program = schedules.program(kind, count, root, wire.sizeBytes());
    runner.run(program, base, offset, wire, op, tag, deadlineNs, what);
  }

  @Override
  public void close() {
    if (direct != null) {
      direct.close();
    }
    if (scratch != 0) {
      UNSAFE.freeMemory(scratch);
      scratch = 0;
      scratchBytes = 0;
    }
  }
}
