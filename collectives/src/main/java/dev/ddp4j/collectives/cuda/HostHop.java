package dev.ddp4j.collectives.cuda;

import dev.ddp4j.Store;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.transport.ShmSegment;
import dev.ddp4j.collectives.transport.TransportConfig;
import dev.ddp4j.spi.Settings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;

/**
 * One ring hop between GPUs without peer access, through host memory both GPUs map: the receiver
 * creates a shared-memory file laid out as its scratch ({@link ScratchLayout}: flags, then the
 * receive slots), both ranks register it with the CUDA driver ({@code cuMemHostRegister}, mapped
 * into the device's address space), and the ring kernel, unchanged, pushes its pieces and raises
 * its flags there over PCIe while the receiver reads them from there. Only the hops that lack peer
 * access go this way; the others of the same ring stay on CUDA IPC.
 *
 * <pre>
 *   store key                            value (UTF-8)
 *   &lt;prefix&gt;/hosthop/&lt;receiver&gt;          the file's path (its size is the scratch's)
 *   &lt;prefix&gt;/hosthop/&lt;receiver&gt;/opened   1, once the sender mapped it; the receiver then unlinks it
 * </pre>
 */
final class HostHop implements AutoCloseable {

  /** Register the range as mapped into the device's address space, for every context. */
  private static final int HOST_REGISTER_PORTABLE_DEVICEMAP = 0x01 | 0x02;

  private final ShmSegment segment;
  private final long bytes;
  private final long devicePointer;

  /** The mapping as JCuda passes host memory: a pointer to the direct buffer. */
  private final Pointer host;

  private HostHop(ShmSegment segment, long bytes) {
    this.segment = segment;
    this.bytes = bytes;
    this.host = Pointer.to(segment.buffer());
    Cu.check(
        JCudaDriver.cuMemHostRegister(host, bytes, HOST_REGISTER_PORTABLE_DEVICEMAP),
        "cuMemHostRegister of " + bytes + " bytes of " + segment.path());
    CUdeviceptr d = new CUdeviceptr();
    Cu.check(
        JCudaDriver.cuMemHostGetDevicePointer(d, host, 0),
        "cuMemHostGetDevicePointer of " + segment.path());
    this.devicePointer = Cu.address(d);
  }

  /**
   * The receiver's side: creates the zeroed area and publishes it; {@link #awaitOpened} then
   * unlinks the file once the sender mapped it.
   */
  static HostHop receive(int rank, long bytes, Store store, String prefix) {
    TransportConfig dirs = TransportConfig.fromEnvironment(Settings.process());
    ShmSegment s =
        ShmSegment.create(dirs.shmDir(), dirs.fallbackDir(), ShmSegment.newName(rank), bytes);
    HostHop h = registered(s, bytes);
    store.set(prefix + "/hosthop/" + rank, s.path().toString().getBytes(StandardCharsets.UTF_8));
    return h;
  }

  /**
   * Waits until the sender mapped this receiver's area, then removes its file name, so that a crash
   * leaves nothing in the shared-memory folder.
   */
  void awaitOpened(int rank, Store store, String prefix, Duration timeout) {
    store.get(prefix + "/hosthop/" + rank + "/opened", timeout);
    segment.unlink();
  }

  /** The sender's side: maps {@code receiver}'s area (collective with {@link #receive}). */
  static HostHop open(int receiver, long bytes, Store store, String prefix, Duration timeout) {
    String path =
        new String(store.get(prefix + "/hosthop/" + receiver, timeout), StandardCharsets.UTF_8);
    ShmSegment s = ShmSegment.open(java.nio.file.Path.of(path), bytes);
    HostHop h = registered(s, bytes);
    store.set(prefix + "/hosthop/" + receiver + "/opened", new byte[] {1});
    return h;
  }

  /** Registers {@code s} with the driver, or unmaps it when that fails. */
  private static HostHop registered(ShmSegment s, long bytes) {
    try {
      return new HostHop(s, bytes);
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
  }

  /** The area's address as the device (the kernels) sees it. */
  long devicePointer() {
    return devicePointer;
  }

  /** Unregisters and unmaps; no kernel may use the area any more. */
  @Override
  public void close() {
    JCudaDriver.cuMemHostUnregister(host);
    segment.close();
  }

  @Override
  public String toString() {
    return "HostHop[" + segment.path() + ", " + bytes + " bytes]";
  }
}
