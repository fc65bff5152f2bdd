package dev.ddp4j.collectives.store;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * One event loop group shared by every store client of this JVM (a benchmark may hold thousands),
 * created with the first client and shut down with the last, so no thread outlives the clients.
 */
final class ClientLoops {

  private static EventLoopGroup group;
  private static int users;

  private ClientLoops() {}

  static synchronized EventLoopGroup acquire() {
    if (users++ == 0) {
      group =
          new MultiThreadIoEventLoopGroup(
              2, new DefaultThreadFactory("ddp4j-store-client", true), NioIoHandler.newFactory());
    }
    return group;
  }

  static synchronized void release() {
    if (--users == 0) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      group = null;
    }
  }
}
