package dev.ddp4j.collectives.cuda;

import dev.ddp4j.collectives.gpu.Cu;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.Pointer;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * The Params struct a ddp4j kernel takes as its only parameter, as 64-bit words in native order,
 * and the launch that passes it; re-filled before each launch, read by the driver at the launch.
 * The header both kernel families begin with (ddp4j_allreduce.cu, ddp4j_collectives.cu, whose
 * static_asserts hold the same offsets):
 *
 * <pre>
 * word  0 in      1 out     2 count   3 seq     4 rank    5 size
 *       6 slot bytes        7 step bytes        8 blocks  9 timeout ns
 *      10 stride (elements) 11 root
 * then  {@link #SCRATCH_OFFSET}: every rank's scratch base, {@link ScratchLayout#MAX_RANKS} words
 * </pre>
 *
 * Launches through {@link DirectLaunch} (JNA) where it loads, cheaper per call than JCuda.
 */
final class KernelParams {

  /** Where the scratch bases begin, after the 12 header words. */
  static final int SCRATCH_OFFSET = 96;

  private final ByteBuffer params;
  private final Pointer kernelParams;
  private final boolean directLaunch = DirectLaunch.available();
  private final long paramArrayAddress;

  /** Keeps the kernelParams array {@code paramArrayAddress} points into alive. */
  private final ByteBuffer paramArray;

  /**
   * @param bytes the struct's size, at least the header and the scratch bases
   */
  KernelParams(int bytes) {
    this.params = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
    this.kernelParams = Pointer.to(Pointer.to(params));
    this.paramArray = directLaunch ? DirectLaunch.paramArray(params) : null;
    this.paramArrayAddress = directLaunch ? DirectLaunch.address(paramArray) : 0;
  }

  /** The struct itself, for words past the header that stay the same from launch to launch. */
  ByteBuffer buffer() {
    return params;
  }

  /** Fills the header and the scratch bases of {@code scratch}'s {@code size} ranks. */
  void fill(
      long in,
      long out,
      long count,
      long seq,
      int rank,
      int size,
      long stepBytes,
      long blocks,
      long timeoutNs,
      long stride,
      int root,
      PeerScratch scratch) {
    params.putLong(0, in);
    params.putLong(8, out);
    params.putLong(16, count);
    params.putLong(24, seq);
    params.putLong(32, rank);
    params.putLong(40, size);
    params.putLong(48, scratch.layout().slotBytes());
    params.putLong(56, stepBytes);
    params.putLong(64, blocks);
    params.putLong(72, timeoutNs);
    params.putLong(80, stride);
    params.putLong(88, root);
    for (int r = 0; r < size; r++) {
      params.putLong(SCRATCH_OFFSET + 8 * r, scratch.base(r));
    }
  }

  /** Launches {@code f} on a 1-D grid of {@code gridBlocks}; returns the CUresult. */
  int launch(CUfunction f, int gridBlocks, CUstream stream) {
    return directLaunch
        ? DirectLaunch.launch(
            DirectLaunch.handle(f),
            gridBlocks,
            AllReduceKernels.THREADS,
            Cu.handle(stream),
            paramArrayAddress)
        : JCudaDriver.cuLaunchKernel(
            f, gridBlocks, 1, 1, AllReduceKernels.THREADS, 1, 1, 0, stream, kernelParams, null);
  }
}
