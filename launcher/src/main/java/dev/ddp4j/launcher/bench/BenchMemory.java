package dev.ddp4j.launcher.bench;

import dev.ddp4j.DataType;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.TensorBuffer;
import java.nio.ByteBuffer;

/**
 * Where the bench's two buffers live: host memory for the cpu backend, GPU memory for cuda. The
 * correctness check writes {@link #hostIn()}, calls {@link #upload}, runs the collective, calls
 * {@link #download} and reads {@link #hostIn()} / {@link #hostOut()}.
 */
interface BenchMemory extends AutoCloseable {

  /** The first {@code bytes} of the input buffer as {@code type} elements. */
  TensorBuffer input(long bytes, DataType type);

  /** The first {@code bytes} of the output buffer. */
  TensorBuffer output(long bytes, DataType type);

  /** Host view of the input buffer (the buffer itself on the host). */
  ByteBuffer hostIn();

  /** Host view of the output buffer. */
  ByteBuffer hostOut();

  /** Makes the first {@code bytes} of {@link #hostIn()} the input's content. */
  void upload(long bytes);

  /** Makes {@link #hostIn()} and {@link #hostOut()} show the buffers' first bytes. */
  void download(long inBytes, long outBytes);

  /** {@code value} summed over every rank (a collective). */
  long sumOverRanks(ProcessGroup pg, long value);

  /**
   * Whether a timing loop queues every call and waits for the last only (device collectives,
   * ordered on one stream, timed as nccl-tests and NCCL's reference harness do), instead of
   * awaiting each call.
   */
  boolean queueAll();

  @Override
  void close();
}
