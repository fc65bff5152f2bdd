package dev.ddp4j.collectives.cuda;

import dev.ddp4j.ConfigException;

/**
 * Where things live in each rank's IPC-shared scratch buffer; the kernels in {@code
 * src/main/cuda/ddp4j_allreduce.cu} use the same numbers.
 *
 * <pre>
 *   rank q's scratch (one cuMemAlloc, shared with every peer through cuIpcGetMemHandle)
 *   +---------------------------------------------+ 0
 *   | flags[MAX_BLOCKS][MAX_RANKS]  u64           |  flags[b][p] is written only by rank p: the
 *   |                                             |  newest (seq &lt;&lt; 16 | step) its block b finished
 *   +---------------------------------------------+ FLAG_BYTES
 *   | half 0: slot[0] | slot[1] | ... slot[n-2]   |  slot[(p - q - 1) mod n] holds what peer p
 *   +---------------------------------------------+  FLAG_BYTES + (n-1) * slotBytes  pushed to q
 *   | half 1: slot[0] | slot[1] | ... slot[n-2]   |  call seq uses half seq % 2
 *   +---------------------------------------------+ FLAG_BYTES + 2 * (n-1) * slotBytes
 *   | LL half 0: ll[0] .. ll[n-2] | LL half 1: .. |  LL_SLOT_BYTES each, written only by the LL
 *   +---------------------------------------------+  kernel, whose flags travel inside the data
 * </pre>
 *
 * A rank writes into a half again only two calls later, when every peer has provably finished
 * reading it (the .cu file says why), so flags are never reset and no end-of-call barrier is
 * needed. The ring kernels use a whole half as one receive area of (n-1) x slotBytes, written only
 * by the rank's ring predecessor (a ring launch takes at most slotBytes - 64 bytes, so its 2(n-1)
 * regions of a chunk each fit).
 *
 * @param ranks ranks in the group, at least 2 (one rank needs no scratch)
 * @param slotBytes bytes of one sender slot: the largest piece one kernel launch reduces
 */
record ScratchLayout(int ranks, long slotBytes) {

  /**
   * Ranks a group on one host may have: HGX-2 / DGX-2 hold 16 GPUs on NVSwitch, and ranks sharing
   * GPUs under MPS go further. The kernels' MAX_RANKS ({@code ddp4j_device.cuh}) is the same number
   * (ScratchLayoutTest reads it); it sizes the flag rows and the kernels' peer tables, which at 32
   * ranks keep their parameters at 384 bytes of the 4 KiB a launch may pass.
   */
  static final int MAX_RANKS = 32;

  static final int MAX_BLOCKS = 512;
  static final long FLAG_BYTES = (long) MAX_BLOCKS * MAX_RANKS * 8;

  /** One LL slot: twice the largest LL payload (each 4 data bytes travel with a 4-byte flag). */
  static final long LL_SLOT_BYTES = 512 << 10;

  /** The largest message the LL kernel takes in one launch. */
  static final long LL_MAX_BYTES = LL_SLOT_BYTES / 2;

  /** Flags live in 16 bits of the flag word under the sequence number. */
  static final int MAX_STEPS = 0xffff;

  ScratchLayout {
    if (ranks < 2 || ranks > MAX_RANKS) {
      throw new IllegalArgumentException(
          "ranks : " + ranks + " (expected: 2 <= ranks <= " + MAX_RANKS + " for the cuda backend)");
    }
    if (slotBytes <= 0 || slotBytes % 16 != 0) {
      throw new IllegalArgumentException(
          "slotBytes : " + slotBytes + " (expected: > 0 and a multiple of 16)");
    }
  }

  /**
   * The layout whose total stays within {@code budgetBytes}, slots rounded down to 1 MiB (at least
   * 1 MiB).
   *
   * @throws ConfigException for more than {@link #MAX_RANKS} ranks, naming the count and the fix
   */
  static ScratchLayout within(int ranks, long budgetBytes) {
    if (ranks > MAX_RANKS) {
      throw new ConfigException(
          "cuda group of "
              + ranks
              + " ranks on one host (expected: at most "
              + MAX_RANKS
              + ", what the kernels' flag rows and peer tables hold): start at most "
              + MAX_RANKS
              + " workers per node (--nproc-per-node), or spread the job over more nodes");
    }
    long perSlot = (budgetBytes - FLAG_BYTES) / (2L * (ranks - 1)) - LL_SLOT_BYTES;
    long mib = 1L << 20;
    return new ScratchLayout(ranks, Math.max(mib, perSlot / mib * mib));
  }

  /** Flags row that the copy-engine algorithm's stream writes use (the kernels' CE_FLAG_BLOCK). */
  static final int COPY_ENGINE_FLAG_BLOCK = MAX_BLOCKS - 1;

  /** Byte offset of the copy-engine flag that {@code sender} writes, in any rank's scratch. */
  static long copyEngineFlagOffset(int sender) {
    return ((long) COPY_ENGINE_FLAG_BLOCK * MAX_RANKS + sender) * 8;
  }

  /**
   * Byte offset, in {@code holder}'s scratch, of the slot that {@code sender} pushes to in launch
   * {@code seq} (the kernels' slotOf).
   */
  long slotOffset(long seq, int holder, int sender) {
    long peerIndex = (sender + ranks - holder - 1) % ranks;
    return FLAG_BYTES + (seq & 1) * (ranks - 1) * slotBytes + peerIndex * slotBytes;
  }

  /** Bytes of the whole scratch buffer. */
  long totalBytes() {
    return FLAG_BYTES + 2L * (ranks - 1) * (slotBytes + LL_SLOT_BYTES);
  }
}
