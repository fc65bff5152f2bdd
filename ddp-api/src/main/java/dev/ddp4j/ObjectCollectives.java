package dev.ddp4j;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Collectives over small Java values (configurations, metrics, file names, random seeds), as
 * PyTorch's {@code broadcast_object_list}, {@code all_gather_object}, {@code gather_object} and
 * {@code scatter_object_list}. Each encodes values with an {@link ObjectCodec} (Java serialisation
 * unless one is given), exchanges every rank's byte length first (values differ in size), then the
 * bytes padded to the longest, through the group's own collectives over {@link HostBuffer}s: so
 * they work on every backend ({@code cuda} and {@code nccl} run them through their host half).
 *
 * <p>They are collectives of the group, called by every rank in the same order as its other
 * collectives, and they block until done. A value that cannot be encoded fails on every rank (the
 * others are told through the lengths) rather than leave them waiting. For tensors, use the buffer
 * collectives: these copy through the heap.
 */
public final class ObjectCollectives {

  private static final long ENCODING_FAILED = -1;

  private ObjectCollectives() {}

  /** {@link #broadcastObject(ProcessGroup, Object, int, ObjectCodec)} with Java serialisation. */
  public static <T> T broadcastObject(ProcessGroup pg, T value, int root) {
    return broadcastObject(pg, value, root, ObjectCodec.javaSerialization());
  }

  /**
   * Returns rank {@code root}'s {@code value} on every rank ({@code value} is read only on the
   * root; pass null elsewhere).
   */
  public static <T> T broadcastObject(ProcessGroup pg, T value, int root, ObjectCodec<T> codec) {
    checkRoot("broadcastObject", pg, root);
    Encoded mine = pg.rank() == root ? Encoded.of(codec, value) : Encoded.NOTHING;
    long[] length = {mine.length()};
    pg.broadcast(HostBuffer.of(length), root).await();
    failIfAnyFailed("broadcastObject", pg, length, root, mine.error);
    byte[] bytes = pg.rank() == root ? mine.bytes : new byte[(int) length[0]];
    pg.broadcast(HostBuffer.of(bytes, DataType.UINT8), root).await();
    return pg.rank() == root ? value : codec.decode(bytes);
  }

  /** {@link #allGatherObject(ProcessGroup, Object, ObjectCodec)} with Java serialisation. */
  public static <T> List<T> allGatherObject(ProcessGroup pg, T value) {
    return allGatherObject(pg, value, ObjectCodec.javaSerialization());
  }

  /** Every rank's {@code value}, in rank order, on every rank. */
  public static <T> List<T> allGatherObject(ProcessGroup pg, T value, ObjectCodec<T> codec) {
    Encoded mine = Encoded.of(codec, value);
    long[] lengths = exchangeLengths("allGatherObject", pg, mine);
    int block = longest("allGatherObject", pg, lengths);
    byte[] all = new byte[block * pg.size()];
    pg.allGather(padded(mine.bytes, block), HostBuffer.of(all, DataType.UINT8)).await();
    return decodeBlocks(codec, all, block, lengths);
  }

  /** {@link #gatherObject(ProcessGroup, Object, int, ObjectCodec)} with Java serialisation. */
  public static <T> Optional<List<T>> gatherObject(ProcessGroup pg, T value, int root) {
    return gatherObject(pg, value, root, ObjectCodec.javaSerialization());
  }

  /**
   * Every rank's {@code value}, in rank order, on rank {@code root}; {@link Optional#empty()} on
   * the other ranks.
   */
  public static <T> Optional<List<T>> gatherObject(
      ProcessGroup pg, T value, int root, ObjectCodec<T> codec) {
    checkRoot("gatherObject", pg, root);
    Encoded mine = Encoded.of(codec, value);
    long[] lengths = exchangeLengths("gatherObject", pg, mine);
    int block = longest("gatherObject", pg, lengths);
    boolean isRoot = pg.rank() == root;
    byte[] all = isRoot ? new byte[block * pg.size()] : null;
    HostBuffer out = isRoot ? HostBuffer.of(all, DataType.UINT8) : null;
    pg.gather(padded(mine.bytes, block), out, root).await();
    return isRoot ? Optional.of(decodeBlocks(codec, all, block, lengths)) : Optional.empty();
  }

  /** {@link #scatterObject(ProcessGroup, List, int, ObjectCodec)} with Java serialisation. */
  public static <T> T scatterObject(ProcessGroup pg, List<T> values, int root) {
    return scatterObject(pg, values, root, ObjectCodec.javaSerialization());
  }

  /**
   * Returns element {@code rank} of rank {@code root}'s {@code values} ({@code size()} of them) on
   * every rank; {@code values} is read only on the root (pass null elsewhere).
   */
  public static <T> T scatterObject(
      ProcessGroup pg, List<T> values, int root, ObjectCodec<T> codec) {
    checkRoot("scatterObject", pg, root);
    int n = pg.size();
    long[] lengths = new long[n];
    byte[][] encoded = new byte[n][];
    RuntimeException error = null;
    if (pg.rank() == root) {
      if (values == null || values.size() != n) {
        throw new IllegalArgumentException(
            "scatterObject on root "
                + root
                + ": "
                + (values == null ? "no values" : values.size() + " values")
                + " (expected: one per rank, "
                + n
                + ")");
      }
      for (int r = 0; r < n; r++) {
        Encoded e = Encoded.of(codec, values.get(r));
        encoded[r] = e.bytes;
        lengths[r] = e.length();
        error = error == null ? e.error : error;
      }
    }
    pg.broadcast(HostBuffer.of(lengths), root).await();
    failIfAnyFailed("scatterObject", pg, lengths, root, error);
    int block = longest("scatterObject", pg, lengths);
    HostBuffer in = null;
    if (pg.rank() == root) {
      byte[] all = new byte[block * n];
      for (int r = 0; r < n; r++) {
        System.arraycopy(encoded[r], 0, all, r * block, encoded[r].length);
      }
      in = HostBuffer.of(all, DataType.UINT8);
    }
    byte[] mine = new byte[block];
    pg.scatter(in, HostBuffer.of(mine, DataType.UINT8), root).await();
    return codec.decode(Arrays.copyOf(mine, (int) lengths[pg.rank()]));
  }

  private static void checkRoot(String op, ProcessGroup pg, int root) {
    if (root < 0 || root >= pg.size()) {
      throw new IllegalArgumentException(
          op + ": root " + root + " is not a rank (expected: 0 <= root < " + pg.size() + ")");
    }
  }

  /** A value's bytes, or (bytes null) the error encoding it, which the peers learn of. */
  private record Encoded(byte[] bytes, RuntimeException error) {
    static final Encoded NOTHING = new Encoded(new byte[0], null);

    static <T> Encoded of(ObjectCodec<T> codec, T value) {
      try {
        return new Encoded(codec.encode(value), null);
      } catch (RuntimeException e) {
        return new Encoded(null, e);
      }
    }

    long length() {
      return bytes == null ? ENCODING_FAILED : bytes.length;
    }
  }

  private static long[] exchangeLengths(String op, ProcessGroup pg, Encoded mine) {
    long[] lengths = new long[pg.size()];
    pg.allGather(HostBuffer.of(new long[] {mine.length()}), HostBuffer.of(lengths)).await();
    failIfAnyFailed(op, pg, lengths, -1, mine.error);
    return lengths;
  }

  /**
   * Throws on every rank once the lengths show that a value could not be encoded: the encoder's
   * error where it failed ({@code own}), a message naming where it failed elsewhere. {@code root}
   * is the rank that encoded every value (broadcast, scatter), or -1 when each rank encodes its
   * own; {@code lengths} is indexed by rank (a broadcast's single length is the root's).
   */
  private static void failIfAnyFailed(
      String op, ProcessGroup pg, long[] lengths, int root, RuntimeException own) {
    List<Integer> failed = new ArrayList<>();
    for (int r = 0; r < lengths.length; r++) {
      if (lengths[r] == ENCODING_FAILED) {
        failed.add(root >= 0 && lengths.length == 1 ? root : r);
      }
    }
    if (failed.isEmpty()) {
      return;
    }
    String prefix = op + " on rank " + pg.rank() + ": ";
    if (own != null) {
      throw new IllegalArgumentException(prefix + own.getMessage(), own);
    }
    throw new DdpException(
        prefix
            + (root < 0
                ? "ranks " + failed + " could not encode their values"
                : "root "
                    + root
                    + " could not encode the value"
                    + (lengths.length == 1 ? "" : "s for ranks " + failed))
            + " (the error on "
            + (root < 0 ? "those ranks" : "rank " + root)
            + " says why)");
  }

  private static int longest(String op, ProcessGroup pg, long[] lengths) {
    long most = 0;
    for (long l : lengths) {
      most = Math.max(most, l);
    }
    if (most * pg.size() > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          op
              + ": values of up to "
              + most
              + " bytes on "
              + pg.size()
              + " ranks do not fit one array (expected: under 2 GiB in all; send large data as"
              + " buffers)");
    }
    return (int) most;
  }

  private static HostBuffer padded(byte[] mine, int block) {
    return HostBuffer.of(Arrays.copyOf(mine, block), DataType.UINT8);
  }

  private static <T> List<T> decodeBlocks(
      ObjectCodec<T> codec, byte[] all, int block, long[] lengths) {
    List<T> out = new ArrayList<>(lengths.length);
    for (int r = 0; r < lengths.length; r++) {
      out.add(codec.decode(Arrays.copyOfRange(all, r * block, r * block + (int) lengths[r])));
    }
    return out;
  }
}
