package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import dev.ddp4j.collectives.gpu.Cu;
import java.util.function.Supplier;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * Reduce, gather, scatter and all-to-all of a cuda group, on the caller's stream like its other
 * collectives. Where every pair has peer access, gather, scatter and all-to-all move each block
 * once, over the copy-engine mailbox ({@link MailboxCollectives}); elsewhere (a ring around pairs
 * without peer access, host-staged, islands across hosts) they are made of the route's own
 * collectives, so they take the same road as those: gather is an all-gather (root's output, or a
 * temporary elsewhere), scatter a broadcast of root's input into a temporary and a local copy of
 * the rank's block, all-to-all an all-gather of every input and local copies of the blocks meant
 * for this rank. Reduce is always an all-reduce (the plan's kernels), into root's buffer on root
 * and into a temporary elsewhere, so other ranks' buffers stay unchanged. Temporaries are
 * stream-ordered allocations ({@code cuMemAllocAsync}) freed on the same stream. A composed scatter
 * or all-to-all ends with a Work of its own after the copies, so it takes two collective sequence
 * numbers (the same on every rank).
 */
final class RootedCollectives {

  private final int rank;
  private final int size;
  private final CudaRoute route;
  private final CudaRoute.Completion done;

  RootedCollectives(int rank, int size, CudaRoute route, CudaRoute.Completion done) {
    this.rank = rank;
    this.size = size;
    this.route = route;
    this.done = done;
  }

  Work reduce(DeviceBuffer b, int root, ReduceOp op, CUstream stream, Supplier<String> what) {
    if (rank == root) {
      return route.allReduce(b, b, op, stream, what);
    }
    DeviceBuffer scratch = temporary(b, b.count(), stream);
    Work w = route.allReduce(b, scratch, op, stream, what);
    free(scratch, stream);
    return w;
  }

  /** {@code out} is null off root. */
  Work gather(DeviceBuffer in, DeviceBuffer out, int root, CUstream stream, Supplier<String> what) {
    MailboxCollectives mail = route.mailbox();
    if (mail != null) {
      if (in.count() > 0) {
        mail.gather(
            in.devicePointer(),
            out == null ? 0 : out.devicePointer(),
            in.sizeBytes(),
            root,
            stream);
      }
      return done.after(stream, what);
    }
    if (rank == root) {
      return route.allGather(in, out, stream, what);
    }
    DeviceBuffer whole = temporary(in, in.count() * size, stream);
    Work w = route.allGather(in, whole, stream, what);
    free(whole, stream);
    return w;
  }

  /** {@code in} is null off root. */
  Work scatter(
      DeviceBuffer in, DeviceBuffer out, int root, CUstream stream, Supplier<String> what) {
    MailboxCollectives mail = route.mailbox();
    if (mail != null) {
      if (out.count() > 0) {
        mail.scatter(
            in == null ? 0 : in.devicePointer(),
            out.devicePointer(),
            out.sizeBytes(),
            root,
            stream);
      }
      return done.after(stream, what);
    }
    DeviceBuffer whole = rank == root ? in : temporary(out, out.count() * size, stream);
    route.broadcast(whole, root, stream, what);
    copy(out.devicePointer(), whole.devicePointer() + rank * out.sizeBytes(), out, stream);
    if (rank != root) {
      free(whole, stream);
    }
    return done.after(stream, what);
  }

  Work allToAll(DeviceBuffer in, DeviceBuffer out, CUstream stream, Supplier<String> what) {
    MailboxCollectives mail = route.mailbox();
    long blockBytes = in.sizeBytes() / size;
    if (mail != null) {
      if (in.count() > 0) {
        mail.allToAll(in.devicePointer(), out.devicePointer(), blockBytes, stream);
      }
      return done.after(stream, what);
    }
    // Rank k's whole input lands at k x (input bytes); its block for this rank is block rank.
    DeviceBuffer every = temporary(in, in.count() * size, stream);
    route.allGather(in, every, stream, what);
    for (int k = 0; k < size; k++) {
      long from = every.devicePointer() + k * in.sizeBytes() + rank * blockBytes;
      copyBytes(out.devicePointer() + k * blockBytes, from, blockBytes, stream);
    }
    free(every, stream);
    return done.after(stream, what);
  }

  private static void copy(long dst, long src, DeviceBuffer shape, CUstream stream) {
    copyBytes(dst, src, shape.sizeBytes(), stream);
  }

  private static void copyBytes(long dst, long src, long bytes, CUstream stream) {
    if (bytes > 0 && dst != src) {
      Cu.check(
          JCudaDriver.cuMemcpyDtoDAsync(Cu.ptr(dst), Cu.ptr(src), bytes, stream),
          "cuMemcpyDtoDAsync of a block");
    }
  }

  /**
   * {@code count} elements of {@code like}'s dtype, allocated in stream order on {@code stream}.
   */
  private static DeviceBuffer temporary(DeviceBuffer like, long count, CUstream stream) {
    CUdeviceptr p = new CUdeviceptr();
    long bytes = Math.max(16, like.dataType().bytesFor(count));
    Cu.check(
        JCudaDriver.cuMemAllocAsync(p, bytes, stream),
        "cuMemAllocAsync of a " + bytes + "-byte temporary");
    return new DeviceBuffer(
        Cu.address(p), like.deviceIndex(), Cu.handle(stream), count, like.dataType());
  }

  private static void free(DeviceBuffer temporary, CUstream stream) {
    Cu.check(
        JCudaDriver.cuMemFreeAsync(Cu.ptr(temporary.devicePointer()), stream),
        "cuMemFreeAsync of a temporary");
  }
}
