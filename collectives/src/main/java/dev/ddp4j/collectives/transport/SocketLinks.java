package dev.ddp4j.collectives.transport;

import static dev.ddp4j.collectives.transport.SocketFrameDescriptor.*;

import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.collectives.log.DebugLog;
import dev.ddp4j.collectives.store.ExchangeCodec;
import dev.ddp4j.collectives.store.StoreExchange;
import dev.ddp4j.spi.Settings;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.stream.IntStream;

/**
 * Netty TCP connections to the ranks on other nodes ({@link SocketFrameDescriptor}): a server per
 * rank on the interface {@code DDP4J_SOCKET_IFNAME} names, one outgoing connection per remote peer.
 * A closed connection marks its peer lost, so a dead peer fails the collective at once; a peer
 * whose host vanished without closing anything (power loss, cable pulled) is told by its silence:
 * every rank sends a heartbeat frame on each connection every {@code DDP4J_SOCKET_LIVENESS_MS / 5},
 * and a peer heard nothing from for {@code DDP4J_SOCKET_LIVENESS_MS} counts as gone.
 */
final class SocketLinks implements AutoCloseable {

  /** How long a peer with a problem may still deliver over its open connection ({@link #gone}). */
  private static final long DRAIN_GRACE_NS = 2_000_000_000L;

  private final int rank;
  private final int channels;
  private final EventLoopGroup loop;
  private final Channel server;
  private final Channel[] outbound; // [peer], null for peers on this node
  private final SocketRecvPort[][] inbound; // [peer][channel]
  private final String[] addresses;
  private final AtomicReferenceArray<String> problems; // [peer]: why it is gone, null while fine
  private final AtomicReferenceArray<String> failures; // [peer]: what it reported, or null
  private final CountDownLatch hellos;
  private final AtomicLongArray lastHeardNs; // [peer]: nanoTime of its last frame, 0 before hello
  // [peer]: 1 from its hello until its connection to this rank closed
  private final AtomicIntegerArray inboundOpen;
  // [peer]: when a problem was first seen while its connection still delivered, 0 before
  private final AtomicLongArray drainSinceNs;
  private final long livenessNs;
  private final SocketHandshake handshake;
  private volatile ScheduledFuture<?> heartbeats;
  volatile Thread progressThread;

  private SocketLinks(
      int rank,
      int size,
      int channels,
      int[] nodeRanks,
      long livenessMs,
      LinkAuth auth,
      boolean sealFrames) {
    this.rank = rank;
    boolean[] remote = new boolean[size];
    for (int p = 0; p < size; p++) {
      remote[p] = ShmLinks.indexOf(nodeRanks, p) < 0;
    }
    this.handshake =
        new SocketHandshake(rank, remote, auth, sealFrames, new DebugLog(Settings.process(), rank));
    int remotePeers = size - nodeRanks.length;
    this.channels = channels;
    this.loop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    this.outbound = new Channel[size];
    this.inbound = new SocketRecvPort[size][channels];
    this.addresses = new String[size];
    this.problems = new AtomicReferenceArray<>(size);
    this.failures = new AtomicReferenceArray<>(size);
    this.hellos = new CountDownLatch(remotePeers);
    this.lastHeardNs = new AtomicLongArray(size);
    this.inboundOpen = new AtomicIntegerArray(size);
    this.drainSinceNs = new AtomicLongArray(size);
    this.livenessNs = TimeUnit.MILLISECONDS.toNanos(livenessMs);
    for (int p = 0; p < size; p++) {
      for (int c = 0; c < channels; c++) {
        inbound[p][c] = new SocketRecvPort(this, c < channels - 1);
      }
    }
    this.server = null;
  }

  private SocketLinks(SocketLinks base, Channel server) {
    this.rank = base.rank;
    this.channels = base.channels;
    this.loop = base.loop;
    this.outbound = base.outbound;
    this.inbound = base.inbound;
    this.addresses = base.addresses;
    this.problems = base.problems;
    this.failures = base.failures;
    this.hellos = base.hellos;
    this.lastHeardNs = base.lastHeardNs;
    this.inboundOpen = base.inboundOpen;
    this.drainSinceNs = base.drainSinceNs;
    this.livenessNs = base.livenessNs;
    this.handshake = base.handshake;
    this.server = server;
  }

  static SocketLinks connect(
      StoreExchange exchange,
      String keyPrefix,
      int[] nodeRanks,
      TransportConfig config,
      Duration timeout) {
    int rank = exchange.rank();
    int size = exchange.size();
    SocketLinks base =
        new SocketLinks(
            rank,
            size,
            config.channels() + 1, // the last carries point-to-point messages only
            nodeRanks,
            config.socketLivenessMs(),
            config.linkAuth(),
            config.socketIntegrity());
    String host = SocketAddresses.advertised(config.socketInterface());
    Channel server;
    try {
      server =
          new ServerBootstrap()
              .group(base.loop)
              .channel(NioServerSocketChannel.class)
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childHandler(base.inboundInitializer(config))
              .bind(new InetSocketAddress(host, 0))
              .sync()
              .channel();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      base.loop.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      throw new DdpException("interrupted while opening the socket transport", e);
    } catch (RuntimeException e) {
      base.loop.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      throw new DdpException("cannot listen on " + host + " for peers on other nodes: " + e, e);
    }
    SocketLinks links = new SocketLinks(base, server);
    try {
      int port = ((InetSocketAddress) server.localAddress()).getPort();
      int[] remote =
          IntStream.range(0, size).filter(p -> ShmLinks.indexOf(nodeRanks, p) < 0).toArray();
      List<String> addrs =
          exchange.gather(keyPrefix + "sock/", host + ":" + port, remote, ExchangeCodec.UTF8);
      for (int i = 0; i < remote.length; i++) {
        int p = remote[i];
        links.addresses[p] = addrs.get(i);
        links.outbound[p] = links.dial(p, addrs.get(i), config, timeout);
      }
      if (!links.hellos.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new DdpTimeoutException(
            "socket transport: "
                + links.hellos.getCount()
                + " peers on other nodes never connected to rank "
                + rank
                + " at "
                + host
                + ":"
                + port
                + " within "
                + timeout.toSeconds()
                + " s (check that DDP4J_SOCKET_IFNAME picks an interface they can reach)");
      }
      long periodMs = Math.max(50, config.socketLivenessMs() / 5);
      links.heartbeats =
          links.loop.scheduleAtFixedRate(
              links::heartbeat, periodMs, periodMs, TimeUnit.MILLISECONDS);
      return links;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      links.close();
      throw new DdpException("interrupted while connecting sockets", e);
    } catch (RuntimeException e) {
      links.close();
      throw e;
    }
  }

  /** Connects to {@code peer} and runs the handshake ({@link SocketHandshake.Dialer}). */
  private Channel dial(int peer, String addr, TransportConfig config, Duration timeout)
      throws InterruptedException {
    int colon = addr.lastIndexOf(':');
    InetSocketAddress target =
        new InetSocketAddress(
            addr.substring(0, colon), Integer.parseInt(addr.substring(colon + 1)));
    int highWater = Math.max(4 << 20, config.slotBytes() * config.slots() * 2);
    SocketHandshake.Dialer dialer = handshake.dialer(peer, addr);
    var future =
        new Bootstrap()
            .group(loop)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(
                ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(timeout.toMillis(), 60_000))
            .option(
                ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(highWater / 2, highWater))
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.closeFuture()
                        .addListener(
                            f -> {
                              dialer.closed();
                              lost(peer, "connection to rank " + peer + " at " + addr + " closed");
                            });
                    dialer.install(
                        ch.pipeline(),
                        e -> lost(peer, "connection to rank " + peer + " at " + addr + ": " + e));
                  }
                })
            .connect(target)
            .await();
    if (!future.isSuccess()) {
      throw dialer.cannotConnect(String.valueOf(future.cause()), future.cause());
    }
    return dialer.complete(future.channel(), timeout);
  }

  /** Runs on the event loop: one empty HEARTBEAT frame on each connection that is not backed up. */
  private void heartbeat() {
    for (Channel ch : outbound) {
      if (ch != null && ch.isActive() && ch.isWritable()) {
        ch.writeAndFlush(SocketFrameWriter.heartbeat(ch.alloc()), ch.voidPromise());
      }
    }
  }

  private ChannelInitializer<SocketChannel> inboundInitializer(TransportConfig config) {
    int maxFrame = HEADER_BYTES + Math.max(config.slotBytes(), 1 << 16) + FrameMac.TAG_BYTES;
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(SocketChannel ch) {
        InboundHandler handler = new InboundHandler();
        ch.pipeline()
            .addLast(new LengthFieldBasedFrameDecoder(maxFrame + 4, 0, 4, 0, 0))
            .addLast(handler);
        // A connection that has not proved the secret by then is dropped.
        ch.eventLoop()
            .schedule(
                () -> {
                  if (handler.peer < 0) {
                    handler.acceptor.refuse(ch, "it did not complete the handshake within 30 s");
                  }
                },
                30,
                TimeUnit.SECONDS);
      }
    };
  }

  /**
   * Runs the receiving end of the handshake ({@link SocketHandshake.Acceptor}), then checks every
   * frame's tag and routes it to the receive ports of the peer that proved itself on this
   * connection.
   */
  private final class InboundHandler extends SimpleChannelInboundHandler<ByteBuf> {
    final SocketHandshake.Acceptor acceptor = handshake.acceptor();
    volatile int peer = -1; // set once the HELLO's proof checked out
    private FrameMac mac;
    private final byte[] tag = new byte[FrameMac.TAG_BYTES];

    InboundHandler() {
      super(false); // frames are released by the port's consumer
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
      if (peer < 0) {
        try {
          int proved = acceptor.read(ctx, frame);
          if (proved >= 0) {
            mac = acceptor.frameMac();
            peer = proved;
            lastHeardNs.set(peer, System.nanoTime());
            inboundOpen.set(peer, 1);
            hellos.countDown();
          }
        } finally {
          frame.release();
        }
        return;
      }
      if (mac != null) {
        int start = frame.readerIndex();
        int sealed = frame.readableBytes() - FrameMac.TAG_BYTES;
        if (sealed < 4 + HEADER_BYTES) {
          frame.release();
          tampered(ctx, "a frame of " + frame.readableBytes() + " bytes, too short to be sealed");
          return;
        }
        mac.tag(frame, start, sealed, tag);
        if (!FrameMac.same(tag, frame, start + sealed)) {
          frame.release();
          tampered(ctx, "a frame whose integrity tag does not match");
          return;
        }
        frame.writerIndex(start + sealed);
      }
      frame.skipBytes(4);
      int channel = frame.getInt(frame.readerIndex());
      lastHeardNs.set(peer, System.nanoTime());
      if (channel >= 0 && channel < channels) {
        inbound[peer][channel].arrived(frame);
        wake();
        return;
      }
      try {
        if (channel == FAILED) {
          long seq = frame.getLong(frame.readerIndex() + 8);
          String reason =
              frame.toString(
                  frame.readerIndex() + HEADER_BYTES,
                  frame.readableBytes() - HEADER_BYTES,
                  StandardCharsets.UTF_8);
          failures.compareAndSet(
              peer, null, "rank " + peer + " gave up on collective #" + seq + ": " + reason);
          wake();
        }
      } finally {
        frame.release();
      }
    }

    private void tampered(ChannelHandlerContext ctx, String what) {
      lost(
          peer,
          "rank "
              + peer
              + " at "
              + ctx.channel().remoteAddress()
              + " sent "
              + what
              + ": altered on the way or not sent by rank "
              + peer
              + "; dropped the connection");
      ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (peer >= 0) {
        inboundOpen.set(peer, 0); // after its last frame: Netty reads a channel in order
        lost(peer, "connection from rank " + peer + " closed");
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (peer >= 0) {
        lost(peer, "connection from rank " + peer + " failed: " + cause);
      }
      ctx.close();
    }
  }

  private void lost(int peer, String why) {
    if (peer >= 0) {
      problems.compareAndSet(peer, null, why);
    }
    wake();
  }

  private void wake() {
    Thread t = progressThread;
    if (t != null) {
      java.util.concurrent.locks.LockSupport.unpark(t);
    }
  }

  SendPort sendPort(int peer, int channel) {
    return new SocketSendPort(outbound[peer], channel, addressOf(peer));
  }

  RecvPort recvPort(int peer, int channel) {
    return inbound[peer][channel];
  }

  private String addressOf(int peer) {
    return addresses[peer];
  }

  /**
   * Why {@code peer} is gone, or null. A problem counts once nothing more can come from it: this
   * rank's connection to a peer that left may close before the peer's own connection delivered its
   * last frames (a send that completed once queued), so while that one is open the peer is not gone
   * yet, for at most {@link #DRAIN_GRACE_NS}.
   */
  String gone(int peer) {
    String problem = problems.get(peer);
    if (problem != null) {
      if (inboundOpen.get(peer) == 1) {
        long now = System.nanoTime() | 1; // 0 means "not seen"
        drainSinceNs.compareAndSet(peer, 0, now);
        if (now - drainSinceNs.get(peer) < DRAIN_GRACE_NS) {
          return null;
        }
      }
      return problem;
    }
    long heard = lastHeardNs.get(peer);
    long silentNs = System.nanoTime() - heard;
    if (heard != 0 && silentNs > livenessNs) {
      return "rank "
          + peer
          + " at "
          + addresses[peer]
          + " sent nothing, not even a heartbeat, for "
          + TimeUnit.NANOSECONDS.toMillis(silentNs)
          + " ms: its host is down or the network to it is cut (a peer silent for"
          + " DDP4J_SOCKET_LIVENESS_MS="
          + TimeUnit.NANOSECONDS.toMillis(livenessNs)
          + " counts as dead)";
    }
    return null;
  }

  String failure(int peer) {
    return failures.get(peer);
  }

  void failed(long sequence, String reason) {
    byte[] text = reason.getBytes(StandardCharsets.UTF_8);
    for (Channel ch : outbound) {
      if (ch != null && ch.isActive()) {
        ch.writeAndFlush(SocketFrameWriter.failed(ch.alloc(), sequence, text));
      }
    }
  }

  @Override
  public void close() {
    ScheduledFuture<?> beats = heartbeats;
    if (beats != null) {
      beats.cancel(false);
    }
    for (int p = 0; p < outbound.length; p++) {
      Channel ch = outbound[p];
      if (ch != null) {
        // Writes complete in order: once this empty one has, every piece reached the kernel, so
        // closing cannot drop the last pieces a slower peer still has to read. Not for a peer
        // that is gone: nothing would drain, and close would stall.
        if (ch.isActive() && gone(p) == null) {
          ch.writeAndFlush(Unpooled.EMPTY_BUFFER).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
        ch.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
      }
    }
    if (server != null) {
      server.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
    }
    for (SocketRecvPort[] ports : inbound) {
      for (SocketRecvPort p : ports) {
        p.discard();
      }
    }
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }
}
