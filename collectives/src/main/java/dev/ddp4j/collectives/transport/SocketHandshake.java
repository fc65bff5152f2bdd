package dev.ddp4j.collectives.transport;

import static dev.ddp4j.collectives.transport.SocketFrameDescriptor.CHALLENGE;
import static dev.ddp4j.collectives.transport.SocketFrameDescriptor.HEADER_BYTES;
import static dev.ddp4j.collectives.transport.SocketFrameDescriptor.HELLO;
import static dev.ddp4j.collectives.transport.SocketFrameDescriptor.OPEN;

import dev.ddp4j.DdpException;
import dev.ddp4j.collectives.log.DebugLog;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Both sides of the socket handshake ({@link SocketFrameDescriptor}, {@link LinkAuth}) of one rank:
 * the dialer sends OPEN with its nonce, checks the receiver's CHALLENGE proof and sends HELLO with
 * its own, after which it seals every frame ({@link Dialer}); the receiver answers OPEN with
 * CHALLENGE and accepts the connection once HELLO proves the job secret, at most one per remote
 * rank ({@link Acceptor}). A refused connection is dropped and logged at WARN.
 */
final class SocketHandshake {

  /** The largest handshake frame, with its length field. */
  static final int MAX_FRAME = 4 + HEADER_BYTES + 256;

  private final int rank;
  private final LinkAuth auth;
  private final boolean sealFrames; // DDP4J_SOCKET_INTEGRITY: frames after the handshake tagged
  private final boolean[] remote; // [peer]: on another node, so it may dial this rank
  private final boolean[] helloFrom; // [peer]: an authenticated connection from it exists
  private final DebugLog log;

  SocketHandshake(int rank, boolean[] remote, LinkAuth auth, boolean sealFrames, DebugLog log) {
    this.rank = rank;
    this.remote = remote;
    this.auth = auth;
    this.sealFrames = sealFrames;
    this.helloFrom = new boolean[remote.length];
    this.log = log;
  }

  /** The dialing side of one connection to {@code peer} at {@code addr}. */
  Dialer dialer(int peer, String addr) {
    return new Dialer(peer, addr);
  }

  /** The receiving side of one accepted connection. */
  Acceptor acceptor() {
    return new Acceptor();
  }

  /**
   * Dials {@code peer}: {@link #install} before connecting, {@link #complete} once connected; then
   * the connection carries the sealed frames of the link.
   */
  final class Dialer {
    private final int peer;
    private final String addr;
    private final CompletableFuture<ByteBuf> challenge = new CompletableFuture<>();
    private final FrameSealer sealer = new FrameSealer();

    private Dialer(int peer, String addr) {
      this.peer = peer;
      this.addr = addr;
    }

    /**
     * Adds the handshake's decoder, the sealer and the challenge's reader to a new connection's
     * pipeline; {@code onError} hears what fails on it.
     */
    void install(ChannelPipeline pipeline, Consumer<Throwable> onError) {
      pipeline
          .addLast(new LengthFieldBasedFrameDecoder(MAX_FRAME, 0, 4, 0, 4))
          .addLast(sealer)
          .addLast(
              new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                  // The peer sends one frame, the challenge; nothing after it.
                  if (!challenge.complete((ByteBuf) msg)) {
                    ((ByteBuf) msg).release();
                    ctx.close();
                  }
                }

                @Override
                public void exceptionCaught(ChannelHandlerContext ctx, Throwable e) {
                  onError.accept(e);
                  ctx.close();
                }
              });
    }

    /** This rank could not reach {@code peer}: {@code why}. */
    DdpException cannotConnect(String why, Throwable cause) {
      return new DdpException(
          "rank " + rank + " cannot connect to rank " + peer + " at " + addr + ": " + why, cause);
    }

    /** The connection closed: a handshake still waiting for the challenge fails. */
    void closed() {
      challenge.completeExceptionally(
          new DdpException("the connection closed during the handshake"));
    }

    /**
     * Runs the handshake on the connected {@code ch}: OPEN with this rank's nonce, the peer's
     * CHALLENGE with its nonce and proof (checked here), HELLO with this rank's proof; every frame
     * after it is sealed.
     */
    Channel complete(Channel ch, Duration timeout) throws InterruptedException {
      byte[] myNonce = LinkAuth.nonce();
      ch.writeAndFlush(SocketFrameWriter.open(ch.alloc(), sealFrames, rank, peer, myNonce));
      ByteBuf c;
      try {
        c = challenge.get(Math.min(timeout.toMillis(), 30_000), TimeUnit.MILLISECONDS);
      } catch (ExecutionException | TimeoutException e) {
        ch.close();
        throw cannotConnect(
            "no handshake came back ("
                + (e.getCause() != null ? e.getCause().getMessage() : "timed out")
                + "); is a ddp4j rank of this job listening there?",
            null);
      }
      byte[] peerNonce = new byte[LinkAuth.NONCE_BYTES];
      byte[] peerProof = new byte[LinkAuth.PROOF_BYTES];
      try {
        boolean wellFormed =
            c.readableBytes() == HEADER_BYTES + LinkAuth.NONCE_BYTES + LinkAuth.PROOF_BYTES
                && c.getInt(c.readerIndex()) == CHALLENGE;
        if (wellFormed) {
          c.getBytes(c.readerIndex() + HEADER_BYTES, peerNonce);
          c.getBytes(c.readerIndex() + HEADER_BYTES + LinkAuth.NONCE_BYTES, peerProof);
        }
        if (!wellFormed
            || !LinkAuth.matches(
                auth.receiverProof(peerNonce, myNonce, rank, peer, sealFrames), peerProof)) {
          ch.close();
          throw new DdpException(
              "rank "
                  + rank
                  + " refused the process at "
                  + addr
                  + " that answered for rank "
                  + peer
                  + ": it could not prove the job secret (every rank must run with the same "
                  + "DDP4J_STORE_SECRET; or another process took that address)");
        }
      } finally {
        c.release();
      }
      byte[] proof = auth.senderProof(peerNonce, myNonce, rank, peer, sealFrames);
      ch.write(SocketFrameWriter.hello(ch.alloc(), rank, peer, proof));
      // Armed on the event loop right after HELLO is written: that and nothing before goes bare.
      if (sealFrames) {
        ch.eventLoop().execute(() -> sealer.arm(auth.frameMac(peerNonce, myNonce, rank, peer)));
      }
      ch.flush();
      return ch;
    }
  }

  /**
   * The receiving end of one connection: answers OPEN with CHALLENGE, then checks HELLO's proof.
   * Runs on the connection's event loop.
   */
  final class Acceptor {
    private int claimed = -1; // the rank the OPEN named
    private byte[] myNonce;
    private byte[] peerNonce;

    private Acceptor() {}

    /**
     * Takes one handshake frame (with its length field; not released here).
     *
     * @return the rank the connection proved to be, or -1 while the handshake goes on or after it
     *     was refused
     */
    int read(ChannelHandlerContext ctx, ByteBuf frame) {
      int r = frame.readerIndex() + 4; // past the length field
      int payload = frame.readableBytes() - 4 - HEADER_BYTES;
      int kind = payload >= 0 ? frame.getInt(r) : 0;
      if (claimed < 0 && kind == OPEN && payload == LinkAuth.NONCE_BYTES) {
        long from = frame.getLong(r + 8);
        long to = frame.getLong(r + 16);
        if (to != rank || from < 0 || from >= remote.length || !remote[(int) from]) {
          refuse(ctx.channel(), "it asked for rank " + to + " as rank " + from);
          return -1;
        }
        if ((frame.getInt(r + 4) == 1) != sealFrames) {
          refuse(
              ctx.channel(),
              "it runs with DDP4J_SOCKET_INTEGRITY="
                  + (sealFrames ? 0 : 1)
                  + ", this rank with "
                  + (sealFrames ? 1 : 0)
                  + " (set the same on every rank)");
          return -1;
        }
        claimed = (int) from;
        peerNonce = new byte[LinkAuth.NONCE_BYTES];
        frame.getBytes(r + HEADER_BYTES, peerNonce);
        myNonce = LinkAuth.nonce();
        byte[] proof = auth.receiverProof(myNonce, peerNonce, claimed, rank, sealFrames);
        ctx.writeAndFlush(SocketFrameWriter.challenge(ctx.alloc(), myNonce, proof));
        return -1;
      }
      if (claimed >= 0 && kind == HELLO && payload == LinkAuth.PROOF_BYTES) {
        byte[] proof = new byte[LinkAuth.PROOF_BYTES];
        frame.getBytes(r + HEADER_BYTES, proof);
        boolean first;
        synchronized (helloFrom) {
          first = !helloFrom[claimed];
          if (first
              && LinkAuth.matches(
                  auth.senderProof(myNonce, peerNonce, claimed, rank, sealFrames), proof)) {
            helloFrom[claimed] = true;
          } else {
            first = false;
          }
        }
        if (!first) {
          refuse(
              ctx.channel(),
              "it could not prove the job secret (every rank must run with the job's"
                  + " DDP4J_STORE_SECRET)");
          return -1;
        }
        return claimed;
      }
      refuse(
          ctx.channel(),
          "it sent "
              + (kind == HELLO ? "a HELLO without the handshake's proof" : "frame kind " + kind)
              + " instead of the handshake (is it a ddp4j rank of this job and version?)");
      return -1;
    }

    /** The key that checks the proved connection's frames, or null where frames are not sealed. */
    FrameMac frameMac() {
      return sealFrames ? auth.frameMac(myNonce, peerNonce, claimed, rank) : null;
    }

    /** Drops an unauthenticated connection and says why, naming who it claimed to be. */
    void refuse(Channel ch, String why) {
      if (!ch.isOpen()) {
        return;
      }
      log.log(
          DebugLog.Level.WARN,
          "socket transport, rank "
              + rank
              + ": dropped a connection from "
              + ch.remoteAddress()
              + (claimed >= 0 ? " claiming to be rank " + claimed : "")
              + ": "
              + why);
      ch.close();
    }
  }
}
