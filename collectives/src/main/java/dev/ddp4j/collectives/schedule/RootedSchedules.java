package dev.ddp4j.collectives.schedule;

import java.util.ArrayList;
import java.util.List;

/**
 * One rank's program for the rooted collectives and all-to-all, the form {@code ProgramRunner}
 * runs. Element offsets are into that rank's working buffer, which the executor sets up:
 *
 * <pre>
 * kind      working buffer (m = block count, n ranks)      steps
 * reduce    root: count elements; others: count + 1        a chain along each channel's ring that
 *           (the chain's head receives one more)           ends at the root: RECV_REDUCE from prev,
 *                                                          SEND to next, slice by slice (pipelined)
 * gather    root: n*m (its output); others: m (input)      others SEND their block to the root
 * scatter   root: n*m (its input); others: m (output)      the root SENDs block q to rank q
 * allToAll  2*n*m: input blocks, then output blocks        at shift k = 1..n-1: SEND input block
 *                                                          r+k to r+k, RECV_COPY output block r-k
 * </pre>
 *
 * A rank that only sends would never see a piece of a peer that called something else, so each has
 * a one-element confirmation towards it, whose header it checks (as broadcast's): in reduce the
 * root first sends one element to the chain's head, which takes it into the element past its data
 * (so ranks that pass different roots meet a piece rather than all wait to receive); in gather the
 * root returns to each sender the last element it received from it (the sender's own value, so its
 * input stays as it was); in scatter each receiver returns its block's last element to the root
 * (likewise). Blocks are cut across channels as the ring collectives cut them; a rank's own block
 * never travels (the executor copies it).
 */
public final class RootedSchedules {

  private RootedSchedules() {}

  /** The collectives of this class, for cache keys and descriptions. */
  public enum Kind {
    REDUCE,
    GATHER,
    SCATTER,
    ALL_TO_ALL
  }

  /** Reduce of {@code count} elements to {@code root} along {@code rings} (one per channel). */
  public static RankSchedule reduce(
      int[][] rings, int rank, int root, long count, long maxStepElements) {
    int n = rings[0].length;
    ChunkLayout layout = ChunkLayout.segmented(count, rings.length, 1);
    List<List<Step>> channels = new ArrayList<>();
    for (int c = 0; c < rings.length; c++) {
      int[] ring = rings[c];
      int p = RingSchedules.positionOf(ring, rank);
      int chainPos =
          Math.floorMod(p - RingSchedules.positionOf(ring, root) - 1, n); // n-1: the root
      int next = ring[(p + 1) % n];
      int prev = ring[Math.floorMod(p - 1, n)];
      long start = layout.offset(c, 0);
      long len = layout.length(c, 0);
      int slices = (int) Math.max(1, Math.min(Integer.MAX_VALUE, ceil(len, maxStepElements)));
      List<Step> steps = new ArrayList<>();
      if (n > 1 && len > 0 && chainPos == n - 1) {
        steps.add(Step.send(next, start + len - 1, 1)); // the root's next heads the chain
      }
      for (int s = 0; s < slices && n > 1; s++) {
        long from = ChunkLayout.partStart(len, slices, s);
        long sliceLen = ChunkLayout.partStart(len, slices, s + 1) - from;
        if (sliceLen == 0) {
          continue;
        }
        if (chainPos > 0) {
          steps.add(Step.recvReduce(prev, start + from, sliceLen));
        }
        if (chainPos < n - 1) {
          steps.add(Step.send(next, start + from, sliceLen));
        }
      }
      if (n > 1 && len > 0 && chainPos == 0) {
        // Last, so its first slice is out before it reads the root's piece: a mismatch then fails
        // both. Into the element past the data: its own values stay.
        steps.add(Step.recvCopy(prev, count, 1));
      }
      channels.add(steps);
    }
    return new RankSchedule(rank, channels);
  }

  /** Gather of {@code blockCount} elements per rank to {@code root}. */
  public static RankSchedule gather(int channels, int n, int rank, int root, long blockCount) {
    return rooted(channels, n, rank, root, blockCount, true);
  }

  /** Scatter of {@code blockCount} elements per rank from {@code root}. */
  public static RankSchedule scatter(int channels, int n, int rank, int root, long blockCount) {
    return rooted(channels, n, rank, root, blockCount, false);
  }

  private static RankSchedule rooted(
      int channels, int n, int rank, int root, long blockCount, boolean toRoot) {
    ChunkLayout layout = ChunkLayout.segmented(blockCount, channels, 1);
    List<List<Step>> out = new ArrayList<>();
    for (int c = 0; c < channels; c++) {
      long from = layout.offset(c, 0);
      long len = layout.length(c, 0);
      List<Step> steps = new ArrayList<>();
      if (len > 0 && rank == root) {
        for (int q = 0; q < n; q++) {
          long at = q * blockCount + from;
          if (q != root) {
            steps.add(toRoot ? Step.recvCopy(q, at, len) : Step.send(q, at, len));
          }
        }
        for (int q = 0; q < n; q++) {
          long last = q * blockCount + from + len - 1;
          if (q != root) {
            steps.add(toRoot ? Step.send(q, last, 1) : Step.recvCopy(q, last, 1));
          }
        }
      } else if (len > 0) {
        steps.add(toRoot ? Step.send(root, from, len) : Step.recvCopy(root, from, len));
        long last = from + len - 1;
        steps.add(toRoot ? Step.recvCopy(root, last, 1) : Step.send(root, last, 1));
      }
      out.add(steps);
    }
    return new RankSchedule(rank, out);
  }

  /**
   * All-to-all of {@code blockCount} elements per pair: input blocks at {@code [0, n*m)}, output
   * blocks at {@code [n*m, 2*n*m)} of the working buffer.
   */
  public static RankSchedule allToAll(int channels, int n, int rank, long blockCount) {
    ChunkLayout layout = ChunkLayout.segmented(blockCount, channels, 1);
    long outputs = n * blockCount;
    List<List<Step>> out = new ArrayList<>();
    for (int c = 0; c < channels; c++) {
      long from = layout.offset(c, 0);
      long len = layout.length(c, 0);
      List<Step> steps = new ArrayList<>();
      for (int k = 1; k < n && len > 0; k++) {
        int dst = (rank + k) % n;
        int src = Math.floorMod(rank - k, n);
        steps.add(Step.send(dst, dst * blockCount + from, len));
        steps.add(Step.recvCopy(src, outputs + src * blockCount + from, len));
      }
      out.add(steps);
    }
    return new RankSchedule(rank, out);
  }

  private static long ceil(long a, long b) {
    return (a + b - 1) / b;
  }
}
