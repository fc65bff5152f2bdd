package dev.ddp4j.collectives.gpu;

import dev.ddp4j.DdpException;

/** A CUDA driver call failed; the message names the call, the CUresult and what was being done. */
public final class CudaException extends DdpException {
  private static final long serialVersionUID = 1L;

  /** The CUresult code the driver returned. */
  private final int result;

  public CudaException(String message, int result) {
    super(message);
    this.result = result;
  }

  /** The CUresult code the driver returned. */
  public int result() {
    return result;
  }
}
