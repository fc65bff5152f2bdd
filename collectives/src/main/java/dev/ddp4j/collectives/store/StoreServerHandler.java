package dev.ddp4j.collectives.store;

import static dev.ddp4j.collectives.store.StoreProtocolDescriptor.*;

import dev.ddp4j.collectives.store.StoreCodec.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * One client connection on the server: sends the challenge, checks the answer, then decodes
 * requests and answers them from {@link StoreState}. A bad frame gets an error reply and closes
 * this connection only.
 */
final class StoreServerHandler extends ChannelInboundHandlerAdapter {

  private final StoreState state;
  private final String secret;
  private final ReplyCache replyCache;
  private final HandshakeGuard guard;
  private final StoreFrameDecoder frames;
  private final byte[] nonce = StoreAuth.nonce();
  private final List<StoreState.Waiter> waiters = new ArrayList<>();
  private long clientId;
  private boolean authenticated;

  /** What every connection of one server shares: made once per server. */
  record Shared(StoreState state, String secret, ReplyCache replyCache, HandshakeGuard guard) {}

  StoreServerHandler(Shared server, StoreFrameDecoder frames) {
    this.state = server.state();
    this.secret = server.secret();
    this.replyCache = server.replyCache();
    this.guard = server.guard();
    this.frames = frames;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    ByteBuf out = ReplyWriter.begin(ctx, STATUS_CHALLENGE, 0);
    out.writeInt(VERSION);
    out.writeBytes(nonce);
    ReplyWriter.send(ctx, out);
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    guard.closed(ctx.channel());
    List<StoreState.Waiter> pending;
    synchronized (waiters) {
      pending = new ArrayList<>(waiters);
      waiters.clear();
    }
    for (StoreState.Waiter w : pending) {
      w.cancel();
      if (w.timer != null) {
        w.timer.cancel(false);
      }
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf frame = (ByteBuf) msg;
    int id = 0;
    try {
      if (frame.readableBytes() < HEADER_BYTES) {
        throw new MalformedFrameException(
            "frame of " + frame.readableBytes() + " bytes is shorter than its 5-byte header");
      }
      byte op = frame.readByte();
      id = frame.readInt();
      if (!authenticated) {
        authenticate(ctx, op, id, frame);
      } else {
        dispatch(ctx, op, id, frame);
      }
    } catch (MalformedFrameException | IllegalArgumentException e) {
      failAndClose(ctx, id, "malformed request: " + e.getMessage());
    } catch (Throwable e) { // NOPMD: an Error here must cost this connection, not the event loop
      ctx.close();
    } finally {
      frame.release();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    try {
      String why =
          cause instanceof TooLongFrameException
                  || cause.getCause() instanceof TooLongFrameException
              ? "frame too long: " + cause.getMessage()
              : cause instanceof DecoderException
                  ? "bad frame: " + cause.getMessage()
                  : cause.toString();
      failAndClose(ctx, 0, why);
    } catch (Throwable e) { // NOPMD: nothing may escape to the event loop
      ctx.close();
    }
  }

  private void failAndClose(ChannelHandlerContext ctx, int id, String message) {
    if (!ctx.channel().isActive()) {
      return;
    }
    ByteBuf out = ReplyWriter.begin(ctx, STATUS_ERROR, id);
    StoreCodec.writeString(out, message);
    ReplyWriter.finish(out);
    ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
  }

  private void authenticate(ChannelHandlerContext ctx, byte op, int id, ByteBuf in) {
    if (op != OP_AUTH) {
      failAndClose(
          ctx, id, opName(op) + " before authentication (expected: auth with the job secret)");
      return;
    }
    long cid = StoreCodec.readLong(in);
    byte[] clientNonce = StoreCodec.readBytes(in);
    byte[] answer = StoreCodec.readBytes(in);
    StoreCodec.expectEnd(in);
    if (clientNonce.length != NONCE_BYTES) {
      throw new MalformedFrameException(
          "client nonce of " + clientNonce.length + " bytes (expected: " + NONCE_BYTES + ")");
    }
    if (!StoreAuth.matches(StoreAuth.clientProof(secret, nonce, clientNonce, cid), answer)) {
      failAndClose(
          ctx,
          id,
          "authentication failed: the client's store secret differs from the server's"
              + " (set DDP4J_STORE_SECRET or DDP4J_STORE_SECRET_FILE to the job's secret)");
      return;
    }
    clientId = cid;
    authenticated = true;
    frames.authenticated();
    guard.authenticated(ctx.channel());
    ReplyWriter.send(
        ctx,
        STATUS_OK,
        id,
        out -> StoreCodec.writeBytes(out, StoreAuth.serverProof(secret, nonce, clientNonce, cid)));
  }

  private void dispatch(ChannelHandlerContext ctx, byte op, int id, ByteBuf in) {
    switch (op) {
      case OP_SET:
        {
          String key = StoreCodec.readString(in);
          byte[] value = StoreCodec.readBytes(in);
          StoreCodec.expectEnd(in);
          List<StoreState.Waiter> ready = state.setAndCollect(key, value);
          ReplyWriter.send(ctx, ReplyWriter.begin(ctx, STATUS_OK, id));
          StoreState.fire(ready);
          return;
        }
      case OP_GET:
        {
          awaitKeys(
              ctx,
              id,
              in,
              List.of(StoreCodec.readString(in)),
              (out, v) -> StoreCodec.writeBytes(out, v.get(0)));
          return;
        }
      case OP_MULTI_GET:
        {
          awaitKeys(
              ctx,
              id,
              in,
              StoreCodec.readKeys(in),
              (out, values) -> {
                out.writeInt(values.size());
                values.forEach(v -> StoreCodec.writeBytes(out, v));
              });
          return;
        }
      case OP_WAIT:
        {
          awaitKeys(ctx, id, in, StoreCodec.readKeys(in), (out, values) -> {});
          return;
        }
      case OP_BARRIER:
        {
          String name = StoreCodec.readString(in);
          int rank = StoreCodec.readInt(in);
          int worldSize = StoreCodec.readInt(in);
          long timeoutMs = readTimeout(in);
          StoreCodec.expectEnd(in);
          try {
            StoreBarrier.checkRank(name, rank, worldSize);
          } catch (IllegalArgumentException e) {
            replyError(ctx, id, e.getMessage());
            return;
          }
          // A request re-sent after a lost connection has arrived already: it only waits again.
          if (replyCache.get(clientId, id) == null) {
            List<StoreState.Waiter> ready = state.arrive(name, rank, worldSize);
            replyCache.put(clientId, id, new byte[0]);
            StoreState.fire(ready);
          }
          awaitThen(
              ctx,
              id,
              List.of(StoreBarrier.doneKey(name)),
              timeoutMs,
              (out, values) -> {},
              (out, missingKeys) -> {
                List<Integer> missing = state.missingRanks(name, worldSize);
                out.writeInt(missing.size());
                missing.forEach(out::writeInt);
              });
          return;
        }
      case OP_ADD:
        {
          String key = StoreCodec.readString(in);
          long delta = StoreCodec.readLong(in);
          StoreCodec.expectEnd(in);
          byte[] cached = replyCache.get(clientId, id);
          if (cached != null) {
            sendCached(ctx, id, cached);
            return;
          }
          StoreState.AddResult r;
          try {
            r = state.add(key, delta);
          } catch (IllegalArgumentException | ArithmeticException e) {
            replyError(ctx, id, e.getMessage());
            return;
          }
          byte[] body = java.nio.ByteBuffer.allocate(8).putLong(0, r.value()).array();
          replyCache.put(clientId, id, body);
          sendCached(ctx, id, body);
          StoreState.fire(r.ready());
          return;
        }
      case OP_COMPARE_SET:
        {
          String key = StoreCodec.readString(in);
          byte[] expected = StoreCodec.readBytes(in);
          byte[] desired = StoreCodec.readBytes(in);
          StoreCodec.expectEnd(in);
          StoreState.CompareSetResult r = state.compareSet(key, expected, desired);
          ReplyWriter.send(ctx, STATUS_OK, id, out -> StoreCodec.writeBytes(out, r.value()));
          StoreState.fire(r.ready());
          return;
        }
      case OP_APPEND:
        {
          String key = StoreCodec.readString(in);
          byte[] value = StoreCodec.readBytes(in);
          StoreCodec.expectEnd(in);
          if (replyCache.get(clientId, id) == null) {
            List<StoreState.Waiter> ready = state.append(key, value);
            replyCache.put(clientId, id, new byte[0]);
            StoreState.fire(ready);
          }
          ReplyWriter.send(ctx, ReplyWriter.begin(ctx, STATUS_OK, id));
          return;
        }
      case OP_MULTI_SET:
        {
          int n = StoreCodec.readCount(in, 8);
          List<String> keys = new ArrayList<>(n);
          List<byte[]> values = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            keys.add(StoreCodec.readString(in));
            values.add(StoreCodec.readBytes(in));
          }
          StoreCodec.expectEnd(in);
          List<StoreState.Waiter> ready = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            ready.addAll(state.setAndCollect(keys.get(i), values.get(i)));
          }
          ReplyWriter.send(ctx, ReplyWriter.begin(ctx, STATUS_OK, id));
          StoreState.fire(ready);
          return;
        }
      case OP_CHECK:
        {
          List<String> keys = StoreCodec.readKeys(in);
          StoreCodec.expectEnd(in);
          ReplyWriter.send(
              ctx, STATUS_OK, id, out -> out.writeByte(state.containsAll(keys) ? 1 : 0));
          return;
        }
      case OP_DELETE:
        {
          String key = StoreCodec.readString(in);
          StoreCodec.expectEnd(in);
          ReplyWriter.send(ctx, STATUS_OK, id, out -> out.writeByte(state.delete(key) ? 1 : 0));
          return;
        }
      case OP_NUM_KEYS:
        {
          StoreCodec.expectEnd(in);
          ReplyWriter.send(ctx, STATUS_OK, id, out -> out.writeLong(state.numKeys()));
          return;
        }
      default:
        throw new MalformedFrameException(
            "unknown operation code " + op + " (expected 2 to 13, see StoreProtocolDescriptor)");
    }
  }

  private static long readTimeout(ByteBuf in) {
    long ms = StoreCodec.readLong(in);
    if (ms < 0) {
      throw new MalformedFrameException("timeoutMs " + ms + " is negative");
    }
    return ms;
  }

  /**
   * The rest of a GET, MULTI_GET or WAIT request (its timeout) read from {@code in}, then {@link
   * #awaitThen} with the missing keys as the timeout's body.
   */
  private void awaitKeys(
      ChannelHandlerContext ctx,
      int id,
      ByteBuf in,
      List<String> keys,
      BiConsumer<ByteBuf, List<byte[]>> body) {
    long timeoutMs = readTimeout(in);
    StoreCodec.expectEnd(in);
    awaitThen(ctx, id, keys, timeoutMs, body, StoreCodec::writeKeys);
  }

  /**
   * Replies with {@code body} (given the keys' values, all taken at one moment they all existed)
   * once every key exists, or after {@code timeoutMs} STATUS_TIMEOUT with {@code timedOut}'s body
   * (given the keys still missing).
   */
  private void awaitThen(
      ChannelHandlerContext ctx,
      int id,
      List<String> keys,
      long timeoutMs,
      BiConsumer<ByteBuf, List<byte[]>> body,
      BiConsumer<ByteBuf, List<String>> timedOut) {
    Consumer<StoreState.Waiter> onReady =
        w -> {
          forget(w);
          if (w.timer != null) {
            w.timer.cancel(false);
          }
          ReplyWriter.send(ctx, STATUS_OK, id, out -> body.accept(out, w.values));
        };
    StoreState.Waiter w = state.newWaiter(keys, onReady);
    List<byte[]> now = state.valuesOrAwait(w);
    if (now != null) {
      ReplyWriter.send(ctx, STATUS_OK, id, out -> body.accept(out, now));
      return;
    }
    synchronized (waiters) {
      waiters.add(w);
    }
    w.timer =
        ctx.executor()
            .schedule(
                () -> {
                  List<String> missing = w.cancel();
                  if (missing != null) {
                    forget(w);
                    ReplyWriter.send(ctx, STATUS_TIMEOUT, id, out -> timedOut.accept(out, missing));
                  }
                },
                timeoutMs,
                TimeUnit.MILLISECONDS);
  }

  private void forget(StoreState.Waiter w) {
    synchronized (waiters) {
      waiters.remove(w);
    }
  }

  private void sendCached(ChannelHandlerContext ctx, int id, byte[] body) {
    ReplyWriter.send(ctx, STATUS_OK, id, out -> out.writeBytes(body));
  }

  private static void replyError(ChannelHandlerContext ctx, int id, String message) {
    ReplyWriter.send(ctx, STATUS_ERROR, id, out -> StoreCodec.writeString(out, message));
  }
}
