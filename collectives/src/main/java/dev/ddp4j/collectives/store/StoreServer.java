package dev.ddp4j.collectives.store;

import dev.ddp4j.StoreException;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The job's TCP key-value store server (PyTorch's TCPStore master), speaking {@link
 * StoreProtocolDescriptor}. The launcher starts one per job (on node 0) and stops it when the job
 * ends; {@link TcpStoreClient} talks to it.
 *
 * <p>Why it lives in {@code collectives} rather than the launcher, where the architecture places
 * the store server: tests of other modules (the CPU backend's, DdpModel's) must start a real store
 * in-process without depending on the launcher module, which the module graph forbids. The launcher
 * only starts and stops it.
 *
 * <p>Every client must prove the job secret (challenge-response) before it may read or write. A
 * malformed or oversized frame gets an error reply and closes that connection; the server keeps
 * serving the others. {@link #close()} stops it and releases its threads.
 */
public final class StoreServer implements AutoCloseable {

  private static final int BACKLOG = 4096;

  /**
   * What a server allows a connection that has not authenticated yet, and the frame limit after.
   *
   * @param handshakeTimeoutMs time from accept to a successful OP_AUTH, after which it is closed
   * @param maxUnauthenticated connections allowed to wait for their handshake at once; past it the
   *     oldest waiting one is closed
   * @param maxFrameBytes largest frame accepted after authentication, header included
   */
  public record Limits(long handshakeTimeoutMs, int maxUnauthenticated, int maxFrameBytes) {

    /** 10 s to authenticate, a quarter of the fd limit (at most 4096) waiting, 16 MiB frames. */
    public static final Limits DEFAULT =
        new Limits(
            10_000,
            HandshakeGuard.defaultMaxUnauthenticated(),
            StoreProtocolDescriptor.DEFAULT_MAX_FRAME_BYTES);

    public Limits {
      if (handshakeTimeoutMs <= 0) {
        throw new IllegalArgumentException(
            "handshakeTimeoutMs : " + handshakeTimeoutMs + " (expected: > 0)");
      }
      if (maxUnauthenticated < 1) {
        throw new IllegalArgumentException(
            "maxUnauthenticated : " + maxUnauthenticated + " (expected: >= 1)");
      }
      if (maxFrameBytes < StoreFrameDecoder.HANDSHAKE_MAX_FRAME_BYTES) {
        throw new IllegalArgumentException(
            "maxFrameBytes : "
                + maxFrameBytes
                + " (expected: >= "
                + StoreFrameDecoder.HANDSHAKE_MAX_FRAME_BYTES
                + ")");
      }
    }

    public Limits withHandshakeTimeoutMs(long ms) {
      return new Limits(ms, maxUnauthenticated, maxFrameBytes);
    }

    public Limits withMaxUnauthenticated(int n) {
      return new Limits(handshakeTimeoutMs, n, maxFrameBytes);
    }

    public Limits withMaxFrameBytes(int bytes) {
      return new Limits(handshakeTimeoutMs, maxUnauthenticated, bytes);
    }
  }

  private final EventLoopGroup loops;
  private final Channel serverChannel;
  private final ChannelGroup clients;
  private final InetSocketAddress address;
  private final HandshakeGuard guard;
  private final AtomicBoolean closed = new AtomicBoolean();

  private StoreServer(
      EventLoopGroup loops, Channel serverChannel, ChannelGroup clients, HandshakeGuard guard) {
    this.loops = loops;
    this.serverChannel = serverChannel;
    this.clients = clients;
    this.guard = guard;
    this.address = (InetSocketAddress) serverChannel.localAddress();
  }

  /**
   * Binds to {@code host:port} ({@code port} 0 picks a free one; host {@code 0.0.0.0} binds every
   * interface) and starts serving.
   *
   * @param secret the job secret clients must prove; empty allows anyone who reaches the port
   * @param maxFrameBytes largest frame accepted, header included
   * @throws StoreException naming the address when it cannot bind
   */
  public static StoreServer start(String host, int port, String secret, int maxFrameBytes) {
    return start(host, port, null, secret, Limits.DEFAULT.withMaxFrameBytes(maxFrameBytes));
  }

  /** {@link #start(String, int, String)} with other {@link Limits}. */
  public static StoreServer start(String host, int port, String secret, Limits limits) {
    return start(host, port, null, secret, limits);
  }

  /**
   * Binds {@code host:port} now, without starting the server: the port is known (and connections
   * wait in the backlog) while the caller does other work, e.g. starts the workers, before {@link
   * Reservation#serve}. Quick: no Netty class is touched.
   *
   * @throws StoreException naming the address when it cannot bind
   */
  public static Reservation reserve(String host, int port) {
    ServerSocketChannel ch = null;
    try {
      ch = ServerSocketChannel.open();
      ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      ch.bind(new InetSocketAddress(host, port), BACKLOG);
      return new Reservation(ch, host);
    } catch (IOException | RuntimeException e) {
      if (ch != null) {
        try {
          ch.close();
        } catch (IOException ignored) {
          // the bind error below is what matters
        }
      }
      throw bindFailed(host, port, e);
    }
  }

  /** A bound port that no server serves yet; {@link #serve} starts one, {@link #close} frees it. */
  public static final class Reservation implements AutoCloseable {
    private final ServerSocketChannel channel;
    private final String host;
    private final int port;
    private boolean served;

    private Reservation(ServerSocketChannel channel, String host) throws IOException {
      this.channel = channel;
      this.host = host;
      this.port = ((InetSocketAddress) channel.getLocalAddress()).getPort();
    }

    public int port() {
      return port;
    }

    /** Starts serving on the reserved port; connections already waiting are then accepted. */
    public StoreServer serve(String secret) {
      served = true;
      return start(host, port, channel, secret, Limits.DEFAULT);
    }

    /** Frees the port unless {@link #serve} took it over. */
    @Override
    public void close() {
      if (!served) {
        try {
          channel.close();
        } catch (IOException e) {
          // nothing listens there any more either way
        }
      }
    }
  }

  private static StoreException bindFailed(String host, int port, Throwable e) {
    return new StoreException(
        "store server cannot bind "
            + host
            + ":"
            + port
            + ": "
            + e
            + " (pick another --master-port, or 0 for a free one on a single node)",
        e);
  }

  private static StoreServer start(
      String host, int port, ServerSocketChannel bound, String secret, Limits limits) {
    StoreAuth.warmUp(secret);
    HandshakeGuard guard =
        new HandshakeGuard(limits.handshakeTimeoutMs(), limits.maxUnauthenticated(), WARN);
    StoreServerHandler.Shared shared =
        new StoreServerHandler.Shared(new StoreState(), secret, new ReplyCache(), guard);
    int threads = Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors()));
    EventLoopGroup loops =
        new MultiThreadIoEventLoopGroup(
            threads,
            new DefaultThreadFactory("ddp4j-store-server", true),
            NioIoHandler.newFactory());
    ChannelGroup clients =
        new DefaultChannelGroup("ddp4j-store-clients", GlobalEventExecutor.INSTANCE);
    ServerBootstrap b =
        new ServerBootstrap()
            .group(loops)
            .channelFactory(
                () ->
                    bound == null
                        ? new NioServerSocketChannel()
                        : new NioServerSocketChannel(bound))
            .option(ChannelOption.SO_BACKLOG, BACKLOG)
            .option(ChannelOption.SO_REUSEADDR, true)
            .handler(new AcceptGuard())
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    clients.add(ch);
                    guard.admit(ch);
                    StoreFrameDecoder frames = new StoreFrameDecoder(limits.maxFrameBytes());
                    ch.pipeline().addLast(frames).addLast(new StoreServerHandler(shared, frames));
                  }
                });
    try {
      Channel ch;
      if (bound == null) {
        ch = b.bind(host, port).syncUninterruptibly().channel();
      } else {
        // Already bound, so active on registration: accepting must wait until registration has
        // added the acceptor (a task it queues), or a connection waiting in the backlog would be
        // accepted with no one to set it up. The read that turning auto-read on queues runs after.
        b.option(ChannelOption.AUTO_READ, false);
        ch = b.register().syncUninterruptibly().channel();
        ch.config().setAutoRead(true);
      }
      // Re-arms accepting that AcceptGuard paused; scheduled now so that nothing it needs has to
      // be loaded (from a jar, through a file descriptor) when descriptors have run out.
      Channel server = ch;
      ch.eventLoop()
          .scheduleWithFixedDelay(
              () -> {
                if (server.isOpen() && !server.config().isAutoRead()) {
                  server.config().setAutoRead(true);
                }
              },
              ACCEPT_RETRY_MS,
              ACCEPT_RETRY_MS,
              TimeUnit.MILLISECONDS);
      return new StoreServer(loops, ch, clients, guard);
    } catch (Exception e) { // Netty rethrows the checked BindException undeclared
      loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw bindFailed(host, port, e);
    }
  }

  private static final long ACCEPT_RETRY_MS = 200;

  /**
   * Where the server's own warnings go: stderr, not the {@code DebugLog} facade, because they must
   * get out when the process has run out of file descriptors (an accept that fails for want of
   * them), where loading the facade's classes or an SLF4J binding can fail too.
   */
  private static final Consumer<String> WARN =
      m -> System.err.println(m); // NOPMD: System.err read per call, so tests can capture it

  /**
   * First on the listening channel: an accept that fails (out of file descriptors, out of memory)
   * pauses accepting until the re-arm task runs, rather than reaching Netty's default handling,
   * which logs (loading classes and files, which fails in just that state, with an Error that kills
   * the event loop). Says so once per run of failures.
   */
  private static final class AcceptGuard extends ChannelInboundHandlerAdapter {
    private boolean reported;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      reported = false;
      ctx.fireChannelRead(msg);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      try {
        ctx.channel().config().setAutoRead(false);
        if (!reported) {
          reported = true;
          WARN.accept("store: cannot accept connections for now, retrying: " + cause);
        }
      } catch (Throwable ignored) { // NOPMD: nothing here may take the accept loop down
        // accepting resumes with the re-arm task
      }
    }
  }

  /**
   * Loads and initializes the classes a server start needs (Netty's event loops, channels,
   * allocator and this package's handlers), so that a process can do it on another thread while it
   * parses its command line and a later {@link #start} is quicker. Safe to skip; errors are left
   * for {@code start} to report.
   */
  public static void preload() {
    ClassLoader loader = StoreServer.class.getClassLoader();
    for (String name :
        new String[] {
          "io.netty.util.internal.PlatformDependent",
          "io.netty.channel.MultiThreadIoEventLoopGroup",
          "io.netty.channel.nio.NioIoHandler",
          "io.netty.channel.SingleThreadIoEventLoop",
          "io.netty.util.concurrent.GlobalEventExecutor",
          "io.netty.channel.group.DefaultChannelGroup",
          "io.netty.bootstrap.ServerBootstrap",
          "io.netty.channel.socket.nio.NioServerSocketChannel",
          "io.netty.channel.socket.nio.NioSocketChannel",
          "io.netty.channel.DefaultChannelPipeline",
          "io.netty.buffer.ByteBufAllocator",
          "io.netty.handler.codec.ByteToMessageDecoder",
          "dev.ddp4j.collectives.store.StoreFrameDecoder",
          "dev.ddp4j.collectives.store.HandshakeGuard",
          "dev.ddp4j.collectives.store.StoreServerHandler",
          "dev.ddp4j.collectives.store.StoreCodec",
          "dev.ddp4j.collectives.store.StoreAuth",
        }) {
      try {
        Class.forName(name, true, loader);
      } catch (ClassNotFoundException | LinkageError e) {
        return;
      }
    }
    StoreAuth.warmUp("");
  }

  /** {@link #start(String, int, String, int)} with the default frame limit. */
  public static StoreServer start(String host, int port, String secret) {
    return start(host, port, secret, StoreProtocolDescriptor.DEFAULT_MAX_FRAME_BYTES);
  }

  /** The address it listens on (with the real port when started with 0). */
  public InetSocketAddress address() {
    return address;
  }

  public int port() {
    return address.getPort();
  }

  /** Number of client connections open now. */
  public int connectionCount() {
    return clients.size();
  }

  /**
   * Closes every client connection but keeps the keys and keeps listening; clients reconnect on
   * their next call. For tests of connection loss.
   */
  public void dropConnections() {
    clients.close().syncUninterruptibly();
  }

  /** Connections open now that have not authenticated yet. */
  int unauthenticatedCount() {
    return guard.waitingCount();
  }

  /**
   * Stops listening, closes every connection and releases the server's threads. A second call (a
   * signal handler racing with the normal shutdown) does nothing.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    serverChannel.close().awaitUninterruptibly();
    clients.close().awaitUninterruptibly();
    loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
  }

  @Override
  public String toString() {
    return "StoreServer[" + address + "]";
  }
}
