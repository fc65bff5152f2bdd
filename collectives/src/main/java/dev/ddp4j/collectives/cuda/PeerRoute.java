package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Work;
import java.util.List;
import java.util.function.Supplier;
import jcuda.driver.CUstream;

/**
 * The route of a group on one host whose kernels move data GPU to GPU: all-reduce through {@link
 * AllReduceLauncher} (the plan's kernel per launch), the other collectives through {@link
 * CollectiveLauncher} where every pair has peer access, or through the ring kernels (each rank
 * writing only into its ring successor, over IPC or a {@link HostHop}) where some pair has none or
 * {@code DDP4J_ALGO=ring} asks for the ring. Where every pair has peer access it also holds the
 * copy-engine mailbox ({@link MailboxCollectives}) of point-to-point and the rooted collectives.
 *
 * @param collectives null where the ring kernels run every collective
 * @param mailbox null where some pair lacks peer access (a ring-only group)
 */
record PeerRoute(
    String name,
    AllReduceLauncher launcher,
    CollectiveLauncher collectives,
    MailboxCollectives mailbox,
    Completion done)
    implements CudaRoute {

  @Override
  public Work allReduce(
      DeviceBuffer in, DeviceBuffer out, ReduceOp op, CUstream stream, Supplier<String> what) {
    if (in.count() > 0) {
      launcher.reduce(in, out, op, stream);
    }
    return done.after(stream, what);
  }

  @Override
  public Work broadcast(DeviceBuffer b, int root, CUstream stream, Supplier<String> what) {
    if (b.count() > 0 && collectives != null) {
      collectives.broadcast(b.devicePointer(), b.sizeBytes(), root, stream);
    } else if (b.count() > 0) {
      launcher.ringBroadcast(b.devicePointer(), b.sizeBytes(), root, stream);
    }
    return done.after(stream, what);
  }

  @Override
  public Work allGather(
      DeviceBuffer part, DeviceBuffer whole, CUstream stream, Supplier<String> what) {
    long p = part.devicePointer();
    if (part.count() > 0 && collectives != null) {
      collectives.allGather(p, whole.devicePointer(), part.sizeBytes(), stream);
    } else if (part.count() > 0) {
      launcher.ringAllGather(p, whole.devicePointer(), part.sizeBytes(), stream);
    }
    return done.after(stream, what);
  }

  @Override
  public Work reduceScatter(
      DeviceBuffer whole, DeviceBuffer part, ReduceOp op, CUstream stream, Supplier<String> what) {
    if (part.count() > 0 && collectives != null) {
      collectives.reduceScatter(whole, part, op, stream);
    } else if (part.count() > 0) {
      launcher.ringReduceScatter(whole, part, op, stream);
    }
    return done.after(stream, what);
  }

  @Override
  public Work barrier(DeviceBuffer word, CUstream stream, Supplier<String> what) {
    launcher.reduce(word, word, ReduceOp.SUM, stream);
    return done.after(stream, what);
  }

  @Override
  public long deviceBytes() {
    return launcher.allocatedBytes() + (mailbox == null ? 0 : mailbox.mailbox().allocatedBytes());
  }

  @Override
  public long maxLaunchBytes() {
    return launcher.maxLaunchBytes();
  }

  @Override
  public List<RuntimeException> close() {
    return CloseSteps.each(collectives, launcher, mailbox);
  }

  @Override
  public String toString() {
    return launcher.toString();
  }
}
