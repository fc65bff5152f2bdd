package dev.ddp4j.collectives.nccl;

import com.sun.jna.Structure;

/**
 * nccl.h's {@code ncclUniqueId}: 128 opaque bytes ({@code char internal[NCCL_UNIQUE_ID_BYTES]})
 * that rank 0 makes and every rank passes, by value, to {@code ncclCommInitRankConfig}. It travels
 * between ranks through the ddp4j store.
 */
@Structure.FieldOrder({"internal"})
public class NcclUniqueId extends Structure {

  /** {@code NCCL_UNIQUE_ID_BYTES}. */
  public static final int BYTES = 128;

  public byte[] internal = new byte[BYTES];

  /** The same layout passed by value, as {@code ncclCommInitRankConfig} takes it. */
  public static class ByValue extends NcclUniqueId implements Structure.ByValue {
    public ByValue() {}

    ByValue(byte[] id) {
      if (id.length != BYTES) {
        throw new IllegalArgumentException(
            "an NCCL unique id of " + id.length + " bytes (expected: " + BYTES + ")");
      }
      System.arraycopy(id, 0, internal, 0, BYTES);
      write();
    }
  }

  /** The bytes as NCCL wrote them (after the call that filled this structure). */
  byte[] bytes() {
    read();
    return internal.clone();
  }
}
