package dev.ddp4j.collectives.nccl;

import dev.ddp4j.ConfigException;
import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Store;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * Hands rank 0's {@code ncclUniqueId} to every rank through the ddp4j store. Rank 0 publishes
 * either the id or why it could not make one, so that the other ranks fail at once with rank 0's
 * reason instead of waiting out the timeout.
 *
 * <pre>
 * value at KEY:  byte 0   | bytes 1..
 *                ID     1 | the 128 bytes of the id
 *                CONFIG 2 | UTF-8 message (rank 0's configuration error, e.g. no libnccl.so.2)
 *                ERROR  3 | UTF-8 message (any other failure)
 * </pre>
 */
final class NcclIdExchange {

  private static final byte ID = 1;
  private static final byte CONFIG = 2;
  private static final byte ERROR = 3;

  private NcclIdExchange() {}

  /**
   * The group's unique id: made by {@code makeId} on rank 0, fetched from {@code key} elsewhere.
   *
   * @throws ConfigException where rank 0 hit a configuration error (the same one on every rank)
   * @throws DdpTimeoutException naming rank 0 when it publishes nothing within {@code timeout}
   */
  static byte[] agree(
      Store store, String key, int rank, Duration timeout, Supplier<byte[]> makeId) {
    if (rank == 0) {
      byte[] id;
      try {
        id = makeId.get();
      } catch (ConfigException e) {
        store.set(key, tagged(CONFIG, e.getMessage()));
        throw e;
      } catch (RuntimeException e) {
        store.set(key, tagged(ERROR, String.valueOf(e.getMessage())));
        throw e;
      }
      byte[] value = new byte[id.length + 1];
      value[0] = ID;
      System.arraycopy(id, 0, value, 1, id.length);
      store.set(key, value);
      return id;
    }
    byte[] value;
    try {
      value = store.get(key, timeout);
    } catch (DdpTimeoutException e) {
      throw new DdpTimeoutException(
          "nccl group on rank "
              + rank
              + ": rank 0 did not publish the NCCL unique id within "
              + timeout.toSeconds()
              + " s (missing rank 0; it makes the id: is it running, and on the same store?)",
          List.of(0));
    }
    String message = new String(value, 1, value.length - 1, StandardCharsets.UTF_8);
    return switch (value[0]) {
      case ID -> Arrays.copyOfRange(value, 1, value.length);
      case CONFIG -> throw new ConfigException("rank 0 could not start NCCL: " + message);
      default -> throw new DdpException("rank 0 could not make the NCCL unique id: " + message);
    };
  }

  private static byte[] tagged(byte tag, String message) {
    byte[] m = message.getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[m.length + 1];
    out[0] = tag;
    System.arraycopy(m, 0, out, 1, m.length);
    return out;
  }
}
