package dev.ddp4j.collectives.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * How a {@link StoreExchange} turns one rank's value into the bytes of its store key and back. The
 * common cases are here; a record with several fields joins them in one codec of its own, so a
 * setup step that publishes several things does it in one round.
 */
public interface ExchangeCodec<T> {

  byte[] encode(T value);

  T decode(byte[] bytes);

  /** UTF-8 text. */
  ExchangeCodec<String> UTF8 =
      new ExchangeCodec<>() {
        @Override
        public byte[] encode(String value) {
          return value.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] bytes) {
          return new String(bytes, StandardCharsets.UTF_8);
        }
      };

  /** The bytes as they are. */
  ExchangeCodec<byte[]> BYTES =
      new ExchangeCodec<>() {
        @Override
        public byte[] encode(byte[] value) {
          return value;
        }

        @Override
        public byte[] decode(byte[] bytes) {
          return bytes;
        }
      };

  /** An int as decimal text, as the store's counters are (readable in a store dump). */
  ExchangeCodec<Integer> INT = UTF8.map(Integer::parseInt, i -> Integer.toString(i));

  /** Big-endian 8-byte longs, any count. */
  ExchangeCodec<long[]> LONGS =
      new ExchangeCodec<>() {
        @Override
        public byte[] encode(long[] value) {
          ByteBuffer b = ByteBuffer.allocate(value.length * Long.BYTES);
          b.asLongBuffer().put(value);
          return b.array();
        }

        @Override
        public long[] decode(byte[] bytes) {
          long[] out = new long[bytes.length / Long.BYTES];
          ByteBuffer.wrap(bytes).asLongBuffer().get(out);
          return out;
        }
      };

  /**
   * This codec seen through a conversion: {@code decoded} after decoding, {@code encoded} before.
   */
  default <U> ExchangeCodec<U> map(
      java.util.function.Function<T, U> decoded, java.util.function.Function<U, T> encoded) {
    ExchangeCodec<T> inner = this;
    return new ExchangeCodec<>() {
      @Override
      public byte[] encode(U value) {
        return inner.encode(encoded.apply(value));
      }

      @Override
      public U decode(byte[] bytes) {
        return decoded.apply(inner.decode(bytes));
      }
    };
  }
}
