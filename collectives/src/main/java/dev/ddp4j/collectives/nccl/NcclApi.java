package dev.ddp4j.collectives.nccl;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The calls of libnccl.so.2 made a few times per group (set-up, errors, tear-down), through JNA's
 * interface mapping, which passes the unique id by value. The collectives themselves go through
 * {@link NcclDirect}.
 */
interface NcclApi extends Library {

  int ncclGetVersion(IntByReference version);

  int ncclGetUniqueId(NcclUniqueId uniqueId);

  int ncclCommInitRankConfig(
      PointerByReference comm,
      int nranks,
      NcclUniqueId.ByValue commId,
      int rank,
      NcclConfig config);

  int ncclCommFinalize(Pointer comm);

  int ncclCommDestroy(Pointer comm);

  int ncclCommAbort(Pointer comm);

  String ncclGetErrorString(int result);

  String ncclGetLastError(Pointer comm);
}
