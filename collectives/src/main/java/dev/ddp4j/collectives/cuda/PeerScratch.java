package dev.ddp4j.collectives.cuda;

import dev.ddp4j.Store;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.gpu.CudaException;
import dev.ddp4j.collectives.store.ExchangeCodec;
import dev.ddp4j.collectives.store.StoreExchange;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUipcMemHandle;
import jcuda.driver.JCudaDriver;

/**
 * Every rank's scratch buffer ({@link ScratchLayout}), allocated once per group and reused by every
 * call, mapped into every rank through CUDA IPC: each rank publishes its {@code cuIpcGetMemHandle}
 * and PCI bus id in the store under {@code <prefix>/scratch/<rank>}, and opens every peer's handle
 * with {@code CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS}, which also enables peer access to that GPU.
 *
 * <p>Store value: {@code [64-byte cuIpcMemHandle][slotBytes, 8 bytes][PCI bus id, ASCII]}; every
 * rank checks that its peers chose the same slot size.
 */
final class PeerScratch implements AutoCloseable {

  private static final int IPC_HANDLE_BYTES = 64;
  private static final int CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 1;
  private static final Field RESERVED;

  static {
    try {
      RESERVED = CUipcMemHandle.class.getDeclaredField("reserved");
      RESERVED.setAccessible(true);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final ScratchLayout layout;
  private final int rank;
  private final CUdeviceptr own;
  private final List<CUdeviceptr> opened = new ArrayList<>();

  /** Host-memory hops into and out of this rank (ring hops without peer access). */
  private final List<HostHop> hostHops = new ArrayList<>();

  /** Every rank's scratch base as mapped in this process, own included, indexed by rank. */
  private final long[] bases;

  private PeerScratch(ScratchLayout layout, int rank, CUdeviceptr own, long[] bases) {
    this.layout = layout;
    this.rank = rank;
    this.own = own;
    this.bases = bases;
  }

  /**
   * Allocates this rank's scratch (zeroed, so every flag starts at 0), publishes it and opens the
   * scratch of every peer {@code mapped} names (a ring-routed group opens only the ring
   * successor's: the pairs off the ring have no peer access); the others' bases stay 0. Collective:
   * returns once those peers published, or fails after {@code timeout} naming the one whose handle
   * never came. Needs this device's context current.
   *
   * <p>Ring hops without peer access go through host memory ({@link HostHop}): with {@code hostIn}
   * this rank's predecessor pushes into a host area that stands in for this rank's scratch ({@link
   * #base} of this rank), and with {@code hostOutTo} >= 0 this rank pushes into that successor's
   * host area (its base here).
   */
  static PeerScratch exchange(
      ScratchLayout layout,
      int rank,
      CUdevice device,
      Store store,
      String prefix,
      Duration timeout,
      boolean[] mapped,
      boolean hostIn,
      int hostOutTo) {
    CUdeviceptr own = new CUdeviceptr();
    Cu.check(
        JCudaDriver.cuMemAlloc(own, layout.totalBytes()),
        "cuMemAlloc of " + layout.totalBytes() + " bytes of scratch on rank " + rank);
    PeerScratch scratch = null;
    try {
      Cu.check(JCudaDriver.cuMemsetD8(own, (byte) 0, layout.totalBytes()), "cuMemsetD8 of scratch");
      CUipcMemHandle handle = new CUipcMemHandle();
      Cu.check(JCudaDriver.cuIpcGetMemHandle(handle, own), "cuIpcGetMemHandle of the scratch");
      String[] bus = new String[1];
      Cu.check(JCudaDriver.cuDeviceGetPCIBusId(bus, 32, device), "cuDeviceGetPCIBusId");
      byte[] busBytes = bus[0].trim().getBytes(StandardCharsets.US_ASCII);
      byte[] mine =
          ByteBuffer.allocate(IPC_HANDLE_BYTES + 8 + busBytes.length)
              .put(handleBytes(handle))
              .putLong(layout.slotBytes())
              .put(busBytes)
              .array();
      int[] peers =
          IntStream.range(0, layout.ranks()).filter(p -> p != rank && mapped[p]).toArray();
      List<byte[]> theirs =
          new StoreExchange(store, rank, layout.ranks(), timeout)
              .gather(prefix + "/scratch/", mine, peers, ExchangeCodec.BYTES);
      long[] bases = new long[layout.ranks()];
      bases[rank] = Cu.address(own);
      scratch = new PeerScratch(layout, rank, own, bases);
      for (int i = 0; i < peers.length; i++) {
        scratch.open(peers[i], theirs.get(i), device, bus[0].trim());
      }
      // Publish this rank's area before waiting on the successor's, or a ring of host hops
      // would wait on itself.
      HostHop in = hostIn ? HostHop.receive(rank, layout.totalBytes(), store, prefix) : null;
      if (in != null) {
        scratch.hostHops.add(in);
        bases[rank] = in.devicePointer();
      }
      if (hostOutTo >= 0) {
        HostHop out = HostHop.open(hostOutTo, layout.totalBytes(), store, prefix, timeout);
        scratch.hostHops.add(out);
        bases[hostOutTo] = out.devicePointer();
      }
      if (in != null) {
        in.awaitOpened(rank, store, prefix, timeout);
      }
      return scratch;
    } catch (RuntimeException e) {
      if (scratch != null) {
        scratch.close();
      } else {
        JCudaDriver.cuMemFree(own);
      }
      throw e;
    }
  }

  private void open(int peer, byte[] value, CUdevice device, String myBus) {
    long peerSlotBytes = ByteBuffer.wrap(value, IPC_HANDLE_BYTES, 8).getLong();
    if (peerSlotBytes != layout.slotBytes()) {
      throw new CudaException(
          "rank "
              + peer
              + " chose scratch slots of "
              + peerSlotBytes
              + " bytes but rank "
              + rank
              + " chose "
              + layout.slotBytes()
              + " (set DDP4J_CUDA_SCRATCH_MIB to the same value on every rank)",
          0);
    }
    String peerBus =
        new String(
            value,
            IPC_HANDLE_BYTES + 8,
            value.length - IPC_HANDLE_BYTES - 8,
            StandardCharsets.US_ASCII);
    CUdevice peerDevice = new CUdevice();
    int rc = JCudaDriver.cuDeviceGetByPCIBusId(peerDevice, peerBus);
    if (rc == 0 && !peerBus.equalsIgnoreCase(myBus)) {
      int[] can = new int[1];
      Cu.check(JCudaDriver.cuDeviceCanAccessPeer(can, device, peerDevice), "cuDeviceCanAccessPeer");
      if (can[0] == 0) {
        throw new CudaException(
            "rank "
                + rank
                + " cannot access rank "
                + peer
                + "'s GPU "
                + peerBus
                + " as a peer (cuDeviceCanAccessPeer = 0) though the routing expected it to; list"
                + " the pair's device ordinals in DDP4J_P2P_DISABLE_PAIRS (e.g. 0-1) to route"
                + " around it, or set DDP4J_P2P_DISABLE=1 to stage every pair through host memory",
            0);
      }
    }
    CUdeviceptr mapped =
        openHandle(
            value,
            "cuIpcOpenMemHandle of rank "
                + peer
                + "'s scratch (GPU "
                + peerBus
                + ") on rank "
                + rank);
    opened.add(mapped);
    bases[peer] = Cu.address(mapped);
  }

  /**
   * Maps the allocation whose handle {@code value} begins with ({@link #handleBytes}) into this
   * process, enabling peer access to its GPU; needs the context current.
   */
  static CUdeviceptr openHandle(byte[] value, String what) {
    CUipcMemHandle handle = new CUipcMemHandle();
    try {
      RESERVED.set(handle, java.util.Arrays.copyOf(value, IPC_HANDLE_BYTES));
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
    CUdeviceptr mapped = new CUdeviceptr();
    Cu.check(
        JCudaDriver.cuIpcOpenMemHandle(mapped, handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), what);
    return mapped;
  }

  /** The 64 bytes of {@code handle}, as published in the store. */
  static byte[] handleBytes(CUipcMemHandle handle) {
    try {
      return (byte[]) RESERVED.get(handle);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  ScratchLayout layout() {
    return layout;
  }

  /** The scratch base of {@code r} as mapped in this process. */
  long base(int r) {
    return bases[r];
  }

  /** Bytes of device memory this rank allocated. */
  long allocatedBytes() {
    return layout.totalBytes();
  }

  /** Unmaps the peers' buffers and frees this rank's. Needs this device's context current. */
  @Override
  public void close() {
    for (CUdeviceptr p : opened) {
      JCudaDriver.cuIpcCloseMemHandle(p);
    }
    opened.clear();
    hostHops.forEach(HostHop::close);
    hostHops.clear();
    JCudaDriver.cuMemFree(own);
  }

  @Override
  public String toString() {
    return "PeerScratch[rank " + rank + ", " + layout + "]";
  }
}
