package dev.ddp4j;

/**
 * Another rank died or left, so a collective or store call involving it cannot finish. Raised
 * within seconds of the loss rather than at the collective's timeout.
 */
public class PeerFailureException extends DdpException {
  private static final long serialVersionUID = 1L;

  private final int peerRank;

  public PeerFailureException(int peerRank, String message, Throwable cause) {
    super(message, cause);
    this.peerRank = peerRank;
  }

  public PeerFailureException(int peerRank, String message) {
    this(peerRank, message, null);
  }

  /** The rank that failed, or -1 when only the connection to it is known to be lost. */
  public int peerRank() {
    return peerRank;
  }
}
