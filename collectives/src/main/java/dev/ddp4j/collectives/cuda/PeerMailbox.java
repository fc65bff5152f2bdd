package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.Store;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.gpu.PairTransport;
import dev.ddp4j.collectives.store.ExchangeCodec;
import dev.ddp4j.collectives.store.StoreExchange;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUipcMemHandle;
import jcuda.driver.CUstream;
import jcuda.driver.CUstreamWaitValue_flags;
import jcuda.driver.JCudaDriver;

/**
 * Every rank's mailbox for messages between two ranks (point-to-point, and the pieces of gather,
 * scatter and all-to-all), mapped into every peer through CUDA IPC like the scratch ({@link
 * PeerScratch}). The bytes move with the copy engine only, no kernel: the sender copies each chunk
 * of its buffer into its slot in the receiver's mailbox ({@code cuMemcpyDtoDAsync} over the peer
 * mapping) and raises its {@code sent} count there with a stream write (which orders the copy's
 * data before it); the receiver's stream waits for that count ({@code cuStreamWaitValue64}), copies
 * the chunk out and raises its {@code freed} count in the sender's mailbox, which the sender waits
 * on before it reuses the slot. Every wait is on the waiting rank's own memory.
 *
 * <pre>
 *   rank q's mailbox (one cuMemAlloc; channel 0: point-to-point, 1: the collectives)
 *   +----------------------------------------------------------+ 0
 *   | sent[channel][p]   u64, written by p: chunks p put in its  |
 *   |                    slots here, counted since the group began |
 *   | freed[channel][p]  u64, written by p: chunks of q's that p |
 *   |                    took out of p's own mailbox               |
 *   +----------------------------------------------------------+ FLAG_BYTES
 *   | slot[channel][(p - q - 1) mod n][k], k &lt; SLOTS: CHUNK_BYTES |  written only by p
 *   +----------------------------------------------------------+
 * </pre>
 *
 * Chunk number k (counting from 1, per channel and ordered pair) uses slot (k - 1) mod SLOTS, so
 * the sender runs at most SLOTS chunks ahead of its receiver. The counters only grow: nothing is
 * reset between messages. Each (channel, pair, direction) is driven by one thread at a time (a
 * point-to-point lane, or the group's caller for the collectives' channel).
 */
final class PeerMailbox implements PairTransport, AutoCloseable {

  static final int P2P = 0;
  static final int COLLECTIVES = 1;
  static final int CHANNELS = 2;
  static final int SLOTS = 2;

  /** Bytes one copy moves; a message of more runs as several chunks, pipelined over the slots. */
  static final long CHUNK_BYTES = 1L << 20;

  static final long FLAG_BYTES = 4096;

  private static final int MAX_RANKS = ScratchLayout.MAX_RANKS;

  static {
    if (2L * CHANNELS * MAX_RANKS * 8 > FLAG_BYTES) {
      throw new ExceptionInInitializerError("mailbox flags overflow FLAG_BYTES");
    }
  }

  private final int rank;
  private final int size;
  private final CUdeviceptr own;
  private final List<CUdeviceptr> opened = new ArrayList<>();

  /** Every rank's mailbox as mapped here, own included. */
  private final long[] bases;

  /** Chunks pushed to / pulled from each peer, per channel (only ever grows). */
  private final long[][] pushed;

  private final long[][] pulled;

  private PeerMailbox(int rank, int size, CUdeviceptr own) {
    this.rank = rank;
    this.size = size;
    this.own = own;
    this.bases = new long[size];
    this.pushed = new long[CHANNELS][size];
    this.pulled = new long[CHANNELS][size];
    bases[rank] = Cu.address(own);
  }

  /** Bytes of one rank's mailbox in a group of {@code size}. */
  static long totalBytes(int size) {
    return FLAG_BYTES + (long) CHANNELS * (size - 1) * SLOTS * CHUNK_BYTES;
  }

  /**
   * Allocates this rank's mailbox (zeroed), publishes it under {@code <prefix>/mailbox/<rank>} and
   * maps every peer's. Collective: returns once every peer published, or fails after {@code
   * timeout} naming the one whose handle never came. Needs the context current; every pair must
   * have peer access.
   */
  static PeerMailbox exchange(int rank, int size, Store store, String prefix, Duration timeout) {
    long bytes = totalBytes(size);
    CUdeviceptr own = new CUdeviceptr();
    Cu.check(
        JCudaDriver.cuMemAlloc(own, bytes),
        "cuMemAlloc of " + bytes + " bytes of p2p mailbox on rank " + rank);
    PeerMailbox box = new PeerMailbox(rank, size, own);
    try {
      Cu.check(JCudaDriver.cuMemsetD8(own, (byte) 0, bytes), "cuMemsetD8 of the mailbox");
      CUipcMemHandle handle = new CUipcMemHandle();
      Cu.check(JCudaDriver.cuIpcGetMemHandle(handle, own), "cuIpcGetMemHandle of the mailbox");
      int[] peers = IntStream.range(0, size).filter(p -> p != rank).toArray();
      List<byte[]> theirs =
          new StoreExchange(store, rank, size, timeout)
              .gather(
                  prefix + "/mailbox/",
                  PeerScratch.handleBytes(handle),
                  peers,
                  ExchangeCodec.BYTES);
      for (int i = 0; i < peers.length; i++) {
        CUdeviceptr m =
            PeerScratch.openHandle(
                theirs.get(i),
                "cuIpcOpenMemHandle of rank " + peers[i] + "'s p2p mailbox on rank " + rank);
        box.opened.add(m);
        box.bases[peers[i]] = Cu.address(m);
      }
      return box;
    } catch (RuntimeException e) {
      box.close();
      throw e;
    }
  }

  static long sentOffset(int channel, int sender) {
    return ((long) channel * MAX_RANKS + sender) * 8;
  }

  static long freedOffset(int channel, int receiver) {
    return ((long) (CHANNELS + channel) * MAX_RANKS + receiver) * 8;
  }

  /** Offset, in {@code holder}'s mailbox, of {@code sender}'s slot {@code k} on {@code channel}. */
  static long slotOffset(int size, int channel, int holder, int sender, int k) {
    long peerIndex = (sender + size - holder - 1) % size;
    return FLAG_BYTES + (((long) channel * (size - 1) + peerIndex) * SLOTS + k) * CHUNK_BYTES;
  }

  /** Bytes of device memory this rank allocated. */
  long allocatedBytes() {
    return totalBytes(size);
  }

  /** Queues copying {@code bytes} at {@code src} into {@code peer}'s mailbox on {@code stream}. */
  void push(int channel, int peer, long src, long bytes, CUstream stream) {
    for (long off = 0; off < bytes; off += CHUNK_BYTES) {
      long len = Math.min(CHUNK_BYTES, bytes - off);
      long k = ++pushed[channel][peer];
      if (k > SLOTS) {
        Cu.check(
            JCudaDriver.cuStreamWaitValue64(
                stream,
                Cu.ptr(bases[rank] + freedOffset(channel, peer)),
                k - SLOTS,
                CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ),
            "cuStreamWaitValue64 for rank " + peer + " to free a mailbox slot");
      }
      long slot = bases[peer] + slotOffset(size, channel, peer, rank, (int) ((k - 1) % SLOTS));
      Cu.check(
          JCudaDriver.cuMemcpyDtoDAsync(Cu.ptr(slot), Cu.ptr(src + off), len, stream),
          "cuMemcpyDtoDAsync into rank " + peer + "'s mailbox");
      Cu.check(
          JCudaDriver.cuStreamWriteValue64(
              stream, Cu.ptr(bases[peer] + sentOffset(channel, rank)), k, 0),
          "cuStreamWriteValue64 of rank " + peer + "'s sent count");
    }
  }

  /** Queues copying {@code bytes} from {@code peer} out of this mailbox to {@code dst}. */
  void pull(int channel, int peer, long dst, long bytes, CUstream stream) {
    for (long off = 0; off < bytes; off += CHUNK_BYTES) {
      long len = Math.min(CHUNK_BYTES, bytes - off);
      long k = ++pulled[channel][peer];
      Cu.check(
          JCudaDriver.cuStreamWaitValue64(
              stream,
              Cu.ptr(bases[rank] + sentOffset(channel, peer)),
              k,
              CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ),
          "cuStreamWaitValue64 for rank " + peer + "'s chunk");
      long slot = bases[rank] + slotOffset(size, channel, rank, peer, (int) ((k - 1) % SLOTS));
      Cu.check(
          JCudaDriver.cuMemcpyDtoDAsync(Cu.ptr(dst + off), Cu.ptr(slot), len, stream),
          "cuMemcpyDtoDAsync out of the mailbox");
      Cu.check(
          JCudaDriver.cuStreamWriteValue64(
              stream, Cu.ptr(bases[peer] + freedOffset(channel, rank)), k, 0),
          "cuStreamWriteValue64 of rank " + peer + "'s freed count");
    }
  }

  @Override
  public void send(DeviceBuffer buffer, int peer, CUstream stream) {
    push(P2P, peer, buffer.devicePointer(), buffer.sizeBytes(), stream);
  }

  @Override
  public void receive(DeviceBuffer buffer, int peer, CUstream stream) {
    pull(P2P, peer, buffer.devicePointer(), buffer.sizeBytes(), stream);
  }

  /**
   * Lets every stream that waits on this mailbox run on: raises all its counts beyond any chunk
   * (for close, when some message never found its peer; the channels are unusable after).
   */
  void releaseWaits() {
    Cu.check(JCudaDriver.cuMemsetD32(own, 0x3fffffff, FLAG_BYTES / 4), "cuMemsetD32 of the flags");
  }

  /** Unmaps the peers' mailboxes and frees this rank's; needs the context current. */
  @Override
  public void close() {
    for (CUdeviceptr p : opened) {
      JCudaDriver.cuIpcCloseMemHandle(p);
    }
    opened.clear();
    JCudaDriver.cuMemFree(own);
  }

  @Override
  public String toString() {
    return "mailbox "
        + (totalBytes(size) >> 20)
        + " MiB (copy engine, "
        + SLOTS
        + " x 1 MiB slots)";
  }
}
