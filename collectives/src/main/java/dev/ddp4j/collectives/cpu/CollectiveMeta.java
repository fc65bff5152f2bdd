package dev.ddp4j.collectives.cpu;

import dev.ddp4j.CollectiveMismatchException;
import dev.ddp4j.DataType;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.collectives.transport.PieceTag;

/**
 * A collective's identity packed into the 32-bit {@code meta} of every piece header, so receivers
 * detect ranks that called different collectives.
 *
 * <pre>
 * bits 0-3 kind | 4-7 dtype | 8-11 op (15 = none) | 12-31 root + 1 (0 = none)
 * </pre>
 */
final class CollectiveMeta {

  enum Kind {
    ALL_REDUCE("allReduce"),
    BROADCAST("broadcast"),
    ALL_GATHER("allGather"),
    REDUCE_SCATTER("reduceScatter"),
    BARRIER("barrier"),
    REDUCE("reduce"),
    GATHER("gather"),
    SCATTER("scatter"),
    ALL_TO_ALL("allToAll");

    final String label;

    Kind(String label) {
      this.label = label;
    }
  }

  private CollectiveMeta() {}

  static int pack(Kind kind, DataType type, ReduceOp op, int root) {
    int o = op == null ? 15 : op.ordinal();
    return kind.ordinal() | type.ordinal() << 4 | o << 8 | (root + 1) << 12;
  }

  /** e.g. {@code allReduce of 4096 float32 with SUM}, {@code broadcast of 8 int32 from root 2}. */
  static String describe(int meta, long count) {
    Kind kind = Kind.values()[meta & 15];
    DataType type = DataType.values()[(meta >>> 4) & 15];
    int op = (meta >>> 8) & 15;
    int root = (meta >>> 12) - 1;
    StringBuilder sb = new StringBuilder(kind.label);
    if (kind != Kind.BARRIER) {
      sb.append(" of ").append(count).append(' ').append(type.ncclName());
    }
    if (op != 15) {
      sb.append(" with ").append(ReduceOp.values()[op]);
    }
    if (root >= 0) {
      sb.append(" from root ").append(root);
    }
    return sb.toString();
  }

  /** The error of a rank whose collective {@code ours} met a peer's {@code theirs}: both named. */
  static CollectiveMismatchException mismatch(int rank, PieceTag ours, int peer, PieceTag theirs) {
    return new CollectiveMismatchException(
        describe(ours.meta, ours.count).replaceFirst(" ", " #" + ours.sequence + " ")
            + " on rank "
            + rank
            + ", but rank "
            + peer
            + " called "
            + describe(theirs.meta, theirs.count)
            + " #"
            + theirs.sequence
            + " (every rank must call the same collectives in the same order with the same"
            + " count, dtype, op and root)");
  }
}
