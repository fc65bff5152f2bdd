package dev.ddp4j.collectives.nccl;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * The collectives of libnccl.so.2 through JNA direct mapping, every argument a primitive (pointers,
 * {@code size_t} and the {@code ncclComm_t}/{@code cudaStream_t} handles as longs): a call costs
 * well under a microsecond, where interface mapping spends several marshalling its arguments. Bound
 * once per process by {@link #bind} to the library {@link NcclLibrary} chose.
 */
final class NcclDirect {

  private NcclDirect() {}

  static void bind(NativeLibrary nccl) {
    Native.register(NcclDirect.class, nccl);
  }

  static native int ncclAllReduce(
      long sendbuff, long recvbuff, long count, int datatype, int op, long comm, long stream);

  static native int ncclBroadcast(
      long sendbuff, long recvbuff, long count, int datatype, int root, long comm, long stream);

  static native int ncclAllGather(
      long sendbuff, long recvbuff, long sendcount, int datatype, long comm, long stream);

  static native int ncclReduceScatter(
      long sendbuff, long recvbuff, long recvcount, int datatype, int op, long comm, long stream);

  static native int ncclReduce(
      long sendbuff,
      long recvbuff,
      long count,
      int datatype,
      int op,
      int root,
      long comm,
      long stream);

  static native int ncclSend(
      long sendbuff, long count, int datatype, int peer, long comm, long stream);

  static native int ncclRecv(
      long recvbuff, long count, int datatype, int peer, long comm, long stream);

  /** Opens a group: the sends and receives until {@link #ncclGroupEnd} are issued as one. */
  static native int ncclGroupStart();

  static native int ncclGroupEnd();

  /**
   * {@code ncclCommGetAsyncError} writing the result into native memory at {@code resultAddress}.
   */
  static native int ncclCommGetAsyncError(long comm, long resultAddress);
}
