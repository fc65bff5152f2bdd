package dev.ddp4j.collectives.store;

import io.netty.channel.Channel;
import java.lang.management.ManagementFactory;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Bounds what connections that have not authenticated yet can hold: each is closed when it has not
 * authenticated within the handshake deadline, and at most {@code maxUnauthenticated} wait at once;
 * past that the oldest waiting one is closed, so a flood of idle sockets can neither exhaust the
 * server's file descriptors nor lock out a real client (whose handshake takes one round trip). The
 * first time the cap is hit it says so, once, until the flood is over.
 */
final class HandshakeGuard {

  private final long deadlineMs;
  private final int maxUnauthenticated;
  private final Consumer<String> warn;
  private final Map<Channel, ScheduledFuture<?>> waiting = new LinkedHashMap<>(); // oldest first
  private boolean warned;

  HandshakeGuard(long deadlineMs, int maxUnauthenticated, Consumer<String> warn) {
    this.deadlineMs = deadlineMs;
    this.maxUnauthenticated = maxUnauthenticated;
    this.warn = warn;
  }

  /**
   * A quarter of the process's file descriptor limit, at most 4096: room for the authenticated
   * clients and everything else the process has open.
   */
  static int defaultMaxUnauthenticated() {
    long fds = 16_384;
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
      fds = unix.getMaxFileDescriptorCount();
    }
    return (int) Math.max(16, Math.min(4096, fds / 4));
  }

  /** A new connection: starts its deadline, and makes room under the cap. */
  void admit(Channel ch) {
    ScheduledFuture<?> deadline =
        ch.eventLoop().schedule(() -> expire(ch), deadlineMs, TimeUnit.MILLISECONDS);
    Channel evicted = null;
    String message = null;
    synchronized (waiting) {
      waiting.put(ch, deadline);
      if (waiting.size() > maxUnauthenticated) {
        Iterator<Map.Entry<Channel, ScheduledFuture<?>>> oldest = waiting.entrySet().iterator();
        Map.Entry<Channel, ScheduledFuture<?>> e = oldest.next();
        oldest.remove();
        e.getValue().cancel(false);
        evicted = e.getKey();
        if (!warned) {
          warned = true;
          message =
              "store: "
                  + maxUnauthenticated
                  + " connections are waiting to authenticate; closing the oldest of them from now"
                  + " on (a process that does not know the job secret is flooding the store port"
                  + " from "
                  + evicted.remoteAddress()
                  + "?)";
        }
      }
    }
    if (evicted != null) {
      evicted.close();
    }
    if (message != null) {
      warn.accept(message);
    }
  }

  /** The connection proved the secret: no deadline, no longer counted. */
  void authenticated(Channel ch) {
    forget(ch);
  }

  /** The connection closed. */
  void closed(Channel ch) {
    forget(ch);
  }

  private void forget(Channel ch) {
    ScheduledFuture<?> deadline;
    synchronized (waiting) {
      deadline = waiting.remove(ch);
      if (warned && waiting.size() < maxUnauthenticated / 2) {
        warned = false; // the flood is over: say so again if another comes
      }
    }
    if (deadline != null) {
      deadline.cancel(false);
    }
  }

  private void expire(Channel ch) {
    boolean wasWaiting;
    synchronized (waiting) {
      wasWaiting = waiting.remove(ch) != null;
    }
    if (wasWaiting) {
      ch.close();
    }
  }

  int waitingCount() {
    synchronized (waiting) {
      return waiting.size();
    }
  }
}
