package dev.ddp4j.collectives.store;

import dev.ddp4j.StoreException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * Layout of the {@link FileStore} log: records appended one after another, big-endian. A later
 * record for a key replaces the earlier; a delete record removes it.
 *
 * <pre>
 *  0        1              5                 5+k            9+k
 *  +--------+--------------+-----------------+--------------+------------------+
 *  | kind u8| key length k | key (UTF-8)     | value len v  | value (v bytes)  |
 *  |        | int32        | k bytes         | int32        |                  |
 *  +--------+--------------+-----------------+--------------+------------------+
 *  kind: 1 = set, 2 = delete (v = 0)
 * </pre>
 */
final class FileStoreDescriptor {

  static final byte KIND_SET = 1;
  static final byte KIND_DELETE = 2;
  static final int FIXED_BYTES = 9;

  private FileStoreDescriptor() {}

  static ByteBuffer encode(byte kind, String key, byte[] value) {
    byte[] k = key.getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(FIXED_BYTES + k.length + value.length);
    b.put(kind).putInt(k.length).put(k).putInt(value.length).put(value);
    return b.flip();
  }

  /**
   * Applies every whole record in {@code buf} to {@code into} and returns the bytes consumed; a
   * record cut short (a writer that died mid-append) ends the read.
   */
  static long apply(ByteBuffer buf, Map<String, byte[]> into, Path path) {
    long consumed = 0;
    while (buf.remaining() >= FIXED_BYTES) {
      int start = buf.position();
      byte kind = buf.get();
      int keyLength = buf.getInt();
      if (keyLength < 0 || keyLength > buf.remaining() - 4) {
        buf.position(start);
        break;
      }
      byte[] key = new byte[keyLength];
      buf.get(key);
      int valueLength = buf.getInt();
      if (valueLength < 0 || valueLength > buf.remaining()) {
        buf.position(start);
        break;
      }
      byte[] value = new byte[valueLength];
      buf.get(value);
      String k = new String(key, StandardCharsets.UTF_8);
      if (kind == KIND_SET) {
        into.put(k, value);
      } else if (kind == KIND_DELETE) {
        into.remove(k);
      } else {
        throw new StoreException(
            "the file store "
                + path
                + " holds a record of unknown kind "
                + kind
                + " at byte "
                + start
                + " (is it a ddp4j store file from this version?)");
      }
      consumed += buf.position() - start;
    }
    return consumed;
  }
}
