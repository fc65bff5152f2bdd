package dev.ddp4j.collectives.store;

import static dev.ddp4j.collectives.store.StoreProtocolDescriptor.*;

import dev.ddp4j.StoreException;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One authenticated connection to a {@link StoreServer}: sends request frames and matches replies
 * to them by request id. When the connection drops, every pending request fails with {@link
 * ConnectionLostException} so its caller can reconnect and retry.
 */
final class StoreConnection {

  /** A reply frame: its status and body. */
  record Reply(byte status, byte[] body) {}

  /** The connection closed before the reply came; the request may be retried. */
  static final class ConnectionLostException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ConnectionLostException(String message) {
      super(message);
    }
  }

  /** The server refused the secret; retrying cannot help. */
  static final class AuthRefusedException extends StoreException {
    private static final long serialVersionUID = 1L;

    AuthRefusedException(String message) {
      super(message);
    }
  }

  private final Channel channel;
  private final Map<Integer, CompletableFuture<Reply>> pending;

  private StoreConnection(Channel channel, Map<Integer, CompletableFuture<Reply>> pending) {
    this.channel = channel;
    this.pending = pending;
  }

  /**
   * Connects and authenticates within {@code timeoutMs}. The whole handshake runs on the event loop
   * ({@link Handler}); the caller waits once, for its outcome: with thousands of workers connecting
   * at once, each hand-off between the caller's thread and the loop is a wake-up the machine pays
   * for.
   *
   * @throws AuthRefusedException when the server rejects the secret or cannot prove it
   * @throws ConnectionLostException when the server cannot be reached or drops the connection
   */
  static StoreConnection open(
      EventLoopGroup loops, String host, int port, String secret, long clientId, long timeoutMs) {
    String where = host + ":" + port;
    // Until the server has proven the secret, a reply larger than the handshake's is refused
    // unread; after, the server is trusted with frames of any size its own limit lets through.
    StoreFrameDecoder frames =
        new StoreFrameDecoder(StoreFrameDecoder.HANDSHAKE_MAX_REPLY_BYTES, Integer.MAX_VALUE);
    Handler handler = new Handler(where, port, secret, clientId, frames);
    Bootstrap b =
        new Bootstrap()
            .group(loops)
            // Not channel(Class): its reflective factory looks the constructor up under a JVM-wide
            // lock, which thousands of clients connecting at once queue on.
            .channelFactory(NioSocketChannel::new)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, timeoutMs))
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast(frames).addLast(handler);
                  }
                });
    ChannelFuture f;
    try {
      f = b.connect(host, port);
    } catch (RuntimeException e) {
      throw new ConnectionLostException("cannot connect to the store at " + where + ": " + e);
    }
    f.addListener(
        c -> {
          if (!c.isSuccess()) {
            handler.fail(
                new ConnectionLostException(
                    "cannot connect to the store at " + where + ": " + c.cause().getMessage()));
          }
        });
    try {
      return handler.ready.get(timeoutMs + 100, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      f.channel().close();
      throw new ConnectionLostException(
          f.isSuccess()
              ? "the store at " + where + " sent no handshake in time"
              : "cannot connect to the store at " + where + ": no answer");
    } catch (ExecutionException e) {
      f.channel().close();
      if (e.getCause() instanceof AuthRefusedException a) {
        throw a;
      }
      if (e.getCause() instanceof ConnectionLostException lost) {
        throw lost;
      }
      throw new ConnectionLostException(
          "the store at " + where + " failed the handshake: " + e.getCause());
    } catch (InterruptedException e) {
      f.channel().close();
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted while connecting to the store at " + where);
    }
  }

  private static boolean serverProved(Reply ok, byte[] expected) {
    try {
      byte[] proof = StoreCodec.readBytes(io.netty.buffer.Unpooled.wrappedBuffer(ok.body()));
      return StoreAuth.matches(expected, proof);
    } catch (RuntimeException e) {
      return false;
    }
  }

  static String errorText(Reply r) {
    try {
      return StoreCodec.readString(io.netty.buffer.Unpooled.wrappedBuffer(r.body()));
    } catch (RuntimeException e) {
      return "(unreadable error reply)";
    }
  }

  boolean isOpen() {
    return channel.isActive();
  }

  /** Sends one request; the future completes with its reply or fails with ConnectionLost. */
  CompletableFuture<Reply> send(byte op, int id, java.util.function.Consumer<ByteBuf> body) {
    CompletableFuture<Reply> f = new CompletableFuture<>();
    pending.put(id, f);
    ByteBuf out = ReplyWriter.header(channel.alloc().buffer(), op, id);
    body.accept(out);
    channel
        .writeAndFlush(ReplyWriter.finish(out))
        .addListener(
            w -> {
              if (!w.isSuccess()) {
                pending.remove(id, f);
                f.completeExceptionally(new ConnectionLostException("write failed: " + w.cause()));
              }
            });
    // The handler fails what is pending when the channel goes inactive; a send racing with that
    // would otherwise wait for a reply that cannot come.
    if (!channel.isActive() && pending.remove(id, f)) {
      f.completeExceptionally(new ConnectionLostException("connection closed"));
    }
    return f;
  }

  void close() {
    channel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
  }

  /**
   * Runs the handshake (challenge, our proof, the server's proof), then routes reply frames to
   * their pending requests. {@link #ready} completes with the connection once the server has proven
   * the secret, or fails with why not.
   */
  private static final class Handler extends ChannelInboundHandlerAdapter {
    final CompletableFuture<StoreConnection> ready = new CompletableFuture<>();
    private final Map<Integer, CompletableFuture<Reply>> pending = new ConcurrentHashMap<>();
    private final String where;
    private final int port;
    private final String secret;
    private final long clientId;
    private final StoreFrameDecoder frames;
    private byte[] serverNonce;
    private byte[] clientNonce;
    private boolean authenticated;

    Handler(String where, int port, String secret, long clientId, StoreFrameDecoder frames) {
      this.where = where;
      this.port = port;
      this.secret = secret;
      this.clientId = clientId;
      this.frames = frames;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf frame = (ByteBuf) msg;
      try {
        byte status = frame.readByte();
        int id = frame.readInt();
        byte[] body = ByteBufUtil.getBytes(frame);
        if (!authenticated) {
          handshake(ctx, status, body);
          return;
        }
        CompletableFuture<Reply> f = pending.remove(id);
        if (f != null) {
          f.complete(new Reply(status, body));
        }
      } finally {
        frame.release();
      }
    }

    private void handshake(ChannelHandlerContext ctx, byte status, byte[] body) {
      if (serverNonce == null) {
        ByteBuf in = io.netty.buffer.Unpooled.wrappedBuffer(body);
        int version = status == STATUS_CHALLENGE && body.length >= 4 ? in.readInt() : -1;
        if (version != VERSION || in.readableBytes() != NONCE_BYTES) {
          refuse(
              ctx,
              "the store at "
                  + where
                  + (version == VERSION || version < 0
                      ? " sent a malformed handshake"
                      : " speaks protocol version " + version + ", this client " + VERSION)
                  + " (run workers with the launcher's ddp4j version, and check that no other"
                  + " program listens on port "
                  + port
                  + ")");
          return;
        }
        serverNonce = new byte[NONCE_BYTES];
        in.readBytes(serverNonce);
        clientNonce = StoreAuth.nonce();
        ByteBuf out = ReplyWriter.header(ctx.alloc().buffer(), OP_AUTH, 0);
        out.writeLong(clientId);
        StoreCodec.writeBytes(out, clientNonce);
        StoreCodec.writeBytes(
            out, StoreAuth.clientProof(secret, serverNonce, clientNonce, clientId));
        ctx.writeAndFlush(ReplyWriter.finish(out), ctx.voidPromise());
        return;
      }
      Reply r = new Reply(status, body);
      if (status != STATUS_OK) {
        refuse(ctx, "the store at " + where + " refused this client: " + errorText(r));
        return;
      }
      if (!serverProved(r, StoreAuth.serverProof(secret, serverNonce, clientNonce, clientId))) {
        refuse(
            ctx,
            "the store at "
                + where
                + " could not prove the job secret, so this client sent it nothing: a process"
                + " that is not this job's store listens on port "
                + port
                + " (another job on the same --master-port? pick another, or stop that process)");
        return;
      }
      authenticated = true;
      frames.authenticated();
      ready.complete(new StoreConnection(ctx.channel(), pending));
    }

    private void refuse(ChannelHandlerContext ctx, String message) {
      fail(new AuthRefusedException(message));
      ctx.close();
    }

    /** Fails the handshake if it is still running, and every pending request. */
    void fail(RuntimeException why) {
      ready.completeExceptionally(why);
      for (Integer id : pending.keySet()) {
        CompletableFuture<Reply> f = pending.remove(id);
        if (f != null) {
          f.completeExceptionally(why);
        }
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      fail(
          new ConnectionLostException(
              authenticated
                  ? "the store closed the connection"
                  : "the store at " + where + " closed the connection during the handshake"));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (cause instanceof StoreFrameDecoder.FrameTooLongException tooLong) {
        // Only a process that has not proven the secret can hit the limit: retrying cannot help.
        fail(
            new AuthRefusedException(
                "the store at "
                    + where
                    + " sent a reply frame of "
                    + tooLong.lengthBytes
                    + " bytes before proving the job secret (at most "
                    + tooLong.limitBytes
                    + " expected), so this client read none of it: a process that is not this"
                    + " job's store listens there (another job on the same --master-port? pick"
                    + " another, or stop that process)"));
      }
      ctx.close();
    }
  }
}
