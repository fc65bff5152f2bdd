package dev.ddp4j.collectives.store;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Reads and writes the body fields of {@link StoreProtocolDescriptor}. Readers check every length
 * against the bytes left in the frame and throw {@link MalformedFrameException} rather than
 * allocate what a corrupt length claims.
 */
final class StoreCodec {

  private StoreCodec() {}

  /** A frame whose fields do not parse. */
  static final class MalformedFrameException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    MalformedFrameException(String message) {
      super(message);
    }
  }

  static void writeString(ByteBuf out, String s) {
    writeBytes(out, s.getBytes(StandardCharsets.UTF_8));
  }

  static void writeBytes(ByteBuf out, byte[] b) {
    out.writeInt(b.length);
    out.writeBytes(b);
  }

  static void writeKeys(ByteBuf out, Collection<String> keys) {
    out.writeInt(keys.size());
    for (String k : keys) {
      writeString(out, k);
    }
  }

  static String readString(ByteBuf in) {
    return new String(readBytes(in), StandardCharsets.UTF_8);
  }

  static byte[] readBytes(ByteBuf in) {
    int n = readCount(in, 1);
    byte[] b = new byte[n];
    in.readBytes(b);
    return b;
  }

  static List<String> readKeys(ByteBuf in) {
    // Each key takes at least its 4-byte length, which bounds a corrupt count.
    int n = readCount(in, 4);
    List<String> keys = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      keys.add(readString(in));
    }
    return keys;
  }

  static List<byte[]> readValues(ByteBuf in) {
    int n = readCount(in, 4);
    List<byte[]> values = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      values.add(readBytes(in));
    }
    return values;
  }

  static int readInt(ByteBuf in) {
    need(in, 4, "int");
    return in.readInt();
  }

  static long readLong(ByteBuf in) {
    need(in, 8, "long");
    return in.readLong();
  }

  static boolean readBool(ByteBuf in) {
    need(in, 1, "bool");
    return in.readByte() != 0;
  }

  /** A count whose items take at least {@code minItemBytes} each, checked against what is left. */
  static int readCount(ByteBuf in, int minItemBytes) {
    need(in, 4, "length");
    int n = in.readInt();
    if (n < 0 || (long) n * minItemBytes > in.readableBytes()) {
      throw new MalformedFrameException(
          "field length "
              + n
              + " does not fit the "
              + in.readableBytes()
              + " bytes left in the frame");
    }
    return n;
  }

  static void expectEnd(ByteBuf in) {
    if (in.isReadable()) {
      throw new MalformedFrameException(in.readableBytes() + " unexpected bytes after the body");
    }
  }

  private static void need(ByteBuf in, int bytes, String what) {
    if (in.readableBytes() < bytes) {
      throw new MalformedFrameException(
          what + " needs " + bytes + " bytes, " + in.readableBytes() + " left in the frame");
    }
  }
}
