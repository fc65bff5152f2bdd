package dev.ddp4j;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.NotSerializableException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;

/**
 * How {@link ObjectCollectives} turn a value into bytes and back: the same codec on every rank.
 * {@link #javaSerialization()} is the default; give your own for values that are not {@link
 * java.io.Serializable} or to send fewer bytes (JSON, protobuf, a hand-written layout).
 */
public interface ObjectCodec<T> {

  byte[] encode(T value);

  T decode(byte[] bytes);

  /**
   * Java serialisation ({@link ObjectOutputStream}). Only for peers you trust, as any
   * deserialisation: the ranks of one job. A value that is not serialisable is an {@link
   * IllegalArgumentException} naming its class and the fix.
   */
  static <T> ObjectCodec<T> javaSerialization() {
    return new ObjectCodec<>() {
      @Override
      public byte[] encode(T value) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
          out.writeObject(value);
        } catch (NotSerializableException e) {
          throw new IllegalArgumentException(
              "a value of "
                  + value.getClass()
                  + " cannot be sent: "
                  + e.getMessage()
                  + " is not java.io.Serializable (expected: Serializable values, or pass an"
                  + " ObjectCodec that encodes them)",
              e);
        } catch (IOException e) {
          throw new IllegalArgumentException(
              "a value of " + value.getClass() + " cannot be serialised: " + e, e);
        }
        return bytes.toByteArray();
      }

      @Override
      @SuppressWarnings("unchecked")
      public T decode(byte[] bytes) {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
          return (T) in.readObject();
        } catch (IOException | ClassNotFoundException e) {
          throw new DdpException(
              "cannot deserialise a value a peer sent ("
                  + bytes.length
                  + " bytes): "
                  + e
                  + " (do all ranks run the same classes?)",
              e);
        }
      }
    };
  }
}
