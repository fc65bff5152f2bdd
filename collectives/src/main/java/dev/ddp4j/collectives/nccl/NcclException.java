package dev.ddp4j.collectives.nccl;

import dev.ddp4j.DdpException;

/** An NCCL call failed; the message names the call, NCCL's result and its own words about it. */
public final class NcclException extends DdpException {
  private static final long serialVersionUID = 1L;

  /** The {@code ncclResult_t} the call returned. */
  private final int result;

  NcclException(String call, int result, String ncclWords, String lastError) {
    super(
        call
            + " failed: "
            + NcclTypes.resultName(result)
            + " ("
            + ncclWords
            + ")"
            + (lastError == null || lastError.isEmpty() ? "" : ": " + lastError));
    this.result = result;
  }

  /** The {@code ncclResult_t} the call returned. */
  public int result() {
    return result;
  }
}
