package dev.ddp4j.collectives.store;

import dev.ddp4j.StoreException;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.util.concurrent.TimeUnit;

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

  private final EventLoopGroup loops;
  private final Channel serverChannel;
  private final ChannelGroup clients;
  private final InetSocketAddress address;

  private StoreServer(
      EventLoopGroup loops, Channel serverChannel, ChannelGroup clients, InetSocketAddress a) {
    this.loops = loops;
    this.serverChannel = serverChannel;
    this.clients = clients;
    this.address = a;
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
    return start(host, port, null, secret, maxFrameBytes);
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
      return start(host, port, channel, secret, StoreProtocolDescriptor.DEFAULT_MAX_FRAME_BYTES);
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
      String host, int port, ServerSocketChannel bound, String secret, int maxFrameBytes) {
    if (maxFrameBytes < 64) {
      throw new IllegalArgumentException("maxFrameBytes : " + maxFrameBytes + " (expected: >= 64)");
    }
    StoreState state = new StoreState();
    ReplyCache cache = new ReplyCache();
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
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    clients.add(ch);
                    ch.pipeline()
                        .addLast(
                            new LengthFieldBasedFrameDecoder(
                                maxFrameBytes,
                                0,
                                StoreProtocolDescriptor.LENGTH_FIELD_BYTES,
                                0,
                                StoreProtocolDescriptor.LENGTH_FIELD_BYTES))
                        .addLast(new StoreServerHandler(state, secret, cache));
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
      return new StoreServer(loops, ch, clients, (InetSocketAddress) ch.localAddress());
    } catch (Exception e) { // Netty rethrows the checked BindException undeclared
      loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw bindFailed(host, port, e);
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
          "io.netty.handler.codec.LengthFieldBasedFrameDecoder",
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

  /** Stops listening, closes every connection and releases the server's threads. */
  @Override
  public void close() {
    serverChannel.close().syncUninterruptibly();
    clients.close().syncUninterruptibly();
    loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Override
  public String toString() {
    return "StoreServer[" + address + "]";
  }
}
