package dev.ddp4j.collectives.store;

import static dev.ddp4j.collectives.store.StoreProtocolDescriptor.*;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A blocking socket that speaks the store protocol byte by byte, to send what a client never would.
 */
final class RawStoreSocket implements AutoCloseable {

  record Frame(byte code, int id, byte[] body) {
    long longBody() {
      return ByteBuffer.wrap(body).getLong();
    }
  }

  private final Socket socket;
  private final DataInputStream in;
  private final DataOutputStream out;

  RawStoreSocket(int port) {
    try {
      socket = new Socket("127.0.0.1", port);
      socket.setSoTimeout(10_000);
      socket.setTcpNoDelay(true);
      in = new DataInputStream(socket.getInputStream());
      out = new DataOutputStream(socket.getOutputStream());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  byte[] readChallengeNonce() {
    Frame f = readFrame();
    if (f.code() != STATUS_CHALLENGE) {
      throw new IllegalStateException("expected a challenge, got code " + f.code());
    }
    byte[] nonce = new byte[NONCE_BYTES];
    System.arraycopy(f.body(), 4, nonce, 0, NONCE_BYTES);
    return nonce;
  }

  void authenticate(String secret, long clientId) {
    byte[] nonce = readChallengeNonce();
    byte[] clientNonce = StoreAuth.nonce();
    byte[] mac = StoreAuth.clientProof(secret, nonce, clientNonce, clientId);
    ByteBuffer body = ByteBuffer.allocate(8 + 4 + clientNonce.length + 4 + mac.length);
    body.putLong(clientId).putInt(clientNonce.length).put(clientNonce).putInt(mac.length).put(mac);
    send(OP_AUTH, 0, body.array());
    Frame r = readFrame();
    if (r.code() != STATUS_OK) {
      throw new IllegalStateException("authentication refused");
    }
  }

  void sendGet(int id, String key) {
    byte[] k = key.getBytes(StandardCharsets.UTF_8);
    send(
        OP_GET,
        id,
        ByteBuffer.allocate(4 + k.length + 8).putInt(k.length).put(k).putLong(1000).array());
  }

  void sendAdd(int id, String key, long delta) {
    byte[] k = key.getBytes(StandardCharsets.UTF_8);
    send(
        OP_ADD,
        id,
        ByteBuffer.allocate(4 + k.length + 8).putInt(k.length).put(k).putLong(delta).array());
  }

  void send(byte op, int id, byte[] body) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    try {
      writeFrame(new DataOutputStream(b), op, id, body);
      writeRaw(b.toByteArray());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One frame of StoreProtocolDescriptor (also what the tests' stand-in servers write). */
  static void writeFrame(DataOutputStream out, byte code, int id, byte[] body) throws IOException {
    out.writeInt(HEADER_BYTES + body.length);
    out.writeByte(code);
    out.writeInt(id);
    out.write(body);
    out.flush();
  }

  /** Writes bytes as they are; false if the server had already closed the connection. */
  boolean writeRaw(byte[] bytes) {
    try {
      out.write(bytes);
      out.flush();
      return true;
    } catch (SocketException e) {
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Frame readFrame() {
    try {
      int length = in.readInt();
      byte code = in.readByte();
      int id = in.readInt();
      byte[] body = new byte[length - HEADER_BYTES];
      in.readFully(body);
      return new Frame(code, id, body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads frames until the server closes the connection (true) or a read times out (false). */
  boolean isClosedByServer() {
    try {
      while (in.read() >= 0) {
        // drain replies to earlier frames
      }
      return true;
    } catch (EOFException | SocketException e) {
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void setReadTimeoutMs(int ms) {
    try {
      socket.setSoTimeout(ms);
    } catch (SocketException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
