package dev.ddp4j.collectives.store;

import static dev.ddp4j.collectives.store.StoreProtocolDescriptor.*;

import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.Store;
import dev.ddp4j.StoreException;
import dev.ddp4j.collectives.store.StoreConnection.ConnectionLostException;
import dev.ddp4j.collectives.store.StoreConnection.Reply;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * {@link Store} over TCP to a {@link StoreServer}. One connection, shared by every thread; requests
 * are pipelined and matched to replies by id. When the connection drops, a call reconnects
 * (re-authenticating) and retries until its own deadline, so a transient loss is invisible to the
 * caller; add and append are not applied twice (the server caches their replies by client and
 * request id).
 */
public final class TcpStoreClient implements Store {

  /** Extra time a call waits past its deadline for the server's own timeout reply to arrive. */
  private static final long REPLY_GRACE_NS = TimeUnit.SECONDS.toNanos(2);

  private static final SecureRandom IDS = new SecureRandom();

  private final String host;
  private final int port;
  private final String secret;
  private final Duration timeout;
  private final long clientId = IDS.nextLong();
  private final AtomicInteger nextId = new AtomicInteger();
  private final EventLoopGroup loops;
  private StoreConnection connection;
  private boolean closed;

  private TcpStoreClient(String host, int port, String secret, Duration timeout) {
    this.host = host;
    this.port = port;
    this.secret = secret;
    this.timeout = timeout;
    this.loops = ClientLoops.acquire();
  }

  /**
   * Connects to the store at {@code host:port}, retrying until {@code timeout} passes (the server
   * may start after its workers).
   *
   * @throws DdpTimeoutException naming the address when it cannot be reached in time
   * @throws StoreException when the server refuses the secret
   */
  public static TcpStoreClient connect(String host, int port, String secret, Duration timeout) {
    TcpStoreClient c = new TcpStoreClient(host, port, secret == null ? "" : secret, timeout);
    try {
      c.connection(System.nanoTime() + timeout.toNanos(), "connect");
      return c;
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
  }

  @Override
  public Duration timeout() {
    return timeout;
  }

  /** Where this client connects, {@code host:port}. */
  public String address() {
    return host + ":" + port;
  }

  @Override
  public void set(String key, byte[] value) {
    keyed(OP_SET, "set of key '" + key + "'", key, out -> StoreCodec.writeBytes(out, value));
  }

  @Override
  public byte[] get(String key, Duration waitFor) {
    Reply r =
        forKeys(
            OP_GET,
            "get of key '" + key + "'",
            List.of(key),
            waitFor,
            out -> StoreCodec.writeString(out, key));
    return StoreCodec.readBytes(Unpooled.wrappedBuffer(r.body()));
  }

  @Override
  public long add(String key, long delta) {
    Reply r = keyed(OP_ADD, "add on key '" + key + "'", key, out -> out.writeLong(delta));
    return Unpooled.wrappedBuffer(r.body()).readLong();
  }

  @Override
  public byte[] compareSet(String key, byte[] expected, byte[] desired) {
    Reply r =
        keyed(
            OP_COMPARE_SET,
            "compareSet on key '" + key + "'",
            key,
            out -> {
              StoreCodec.writeBytes(out, expected);
              StoreCodec.writeBytes(out, desired);
            });
    return StoreCodec.readBytes(Unpooled.wrappedBuffer(r.body()));
  }

  @Override
  public void wait(Collection<String> keys, Duration waitFor) {
    List<String> list = List.copyOf(keys);
    forKeys(OP_WAIT, "wait for " + list.size() + " key(s)", list, waitFor);
  }

  @Override
  public boolean check(Collection<String> keys) {
    List<String> list = List.copyOf(keys);
    Reply r = immediate(OP_CHECK, "check", out -> StoreCodec.writeKeys(out, list));
    return r.body()[0] != 0;
  }

  @Override
  public boolean delete(String key) {
    Reply r = keyed(OP_DELETE, "delete of key '" + key + "'", key, out -> {});
    return r.body()[0] != 0;
  }

  @Override
  public long numKeys() {
    Reply r = immediate(OP_NUM_KEYS, "numKeys", out -> {});
    return Unpooled.wrappedBuffer(r.body()).readLong();
  }

  @Override
  public List<byte[]> multiGet(List<String> keys, Duration waitFor) {
    List<String> list = List.copyOf(keys);
    Reply r = forKeys(OP_MULTI_GET, "multiGet of " + list.size() + " key(s)", list, waitFor);
    return StoreCodec.readValues(Unpooled.wrappedBuffer(r.body()));
  }

  @Override
  public void multiSet(Map<String, byte[]> values) {
    List<Map.Entry<String, byte[]>> entries = new ArrayList<>(values.entrySet());
    immediate(
        OP_MULTI_SET,
        "multiSet of " + entries.size() + " key(s)",
        out -> {
          out.writeInt(entries.size());
          for (Map.Entry<String, byte[]> e : entries) {
            StoreCodec.writeString(out, e.getKey());
            StoreCodec.writeBytes(out, e.getValue());
          }
        });
  }

  @Override
  public void append(String key, byte[] value) {
    keyed(OP_APPEND, "append to key '" + key + "'", key, out -> StoreCodec.writeBytes(out, value));
  }

  /**
   * {@link StoreBarrier#await} in one round trip: the server marks the arrival, counts it and
   * answers once every rank has arrived (see {@code OP_BARRIER}).
   *
   * @throws DdpTimeoutException after {@code waitFor}, naming the ranks that never arrived
   */
  void barrier(String name, int rank, int worldSize, Duration waitFor) {
    Reply r =
        send(
            OP_BARRIER,
            "barrier '" + name + "'",
            List.of(StoreBarrier.doneKey(name)),
            waitFor,
            ServerWait.FOR_KEYS,
            out -> {
              StoreCodec.writeString(out, name);
              out.writeInt(rank);
              out.writeInt(worldSize);
            });
    if (r.status() == STATUS_TIMEOUT) {
      ByteBuf in = Unpooled.wrappedBuffer(r.body());
      int n = StoreCodec.readCount(in, 4);
      List<Integer> missing = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        missing.add(in.readInt());
      }
      throw StoreBarrier.timedOut(name, rank, worldSize, waitFor, missing);
    }
    check(r, "barrier '" + name + "'", waitFor);
  }

  @Override
  public void close() {
    StoreConnection c;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      c = connection;
      connection = null;
    }
    if (c != null) {
      c.close();
    }
    ClientLoops.release();
  }

  /** Whether an operation blocks on the server, and so carries the time it may wait there. */
  private enum ServerWait {
    /** Answered at once (set, add, check, ...): the call's budget only bounds the round trip. */
    NONE,
    /**
     * Answered when its keys exist (get, wait, multiGet): the body ends with the budget left, in
     * ms, which the server waits at most before answering STATUS_TIMEOUT with the missing keys.
     */
    FOR_KEYS
  }

  /** A call on one key the server answers at once: the key, then what {@code rest} writes. */
  private Reply keyed(byte op, String what, String key, Consumer<ByteBuf> rest) {
    return immediate(
        op,
        what,
        out -> {
          StoreCodec.writeString(out, key);
          rest.accept(out);
        });
  }

  /** A call on {@code keys} (its body: the keys) that waits for them, within {@code waitFor}. */
  private Reply forKeys(byte op, String what, List<String> keys, Duration waitFor) {
    return forKeys(op, what, keys, waitFor, out -> StoreCodec.writeKeys(out, keys));
  }

  /** A call the server answers once {@code keys} exist, within {@code waitFor}; its OK reply. */
  private Reply forKeys(
      byte op, String what, List<String> keys, Duration waitFor, Consumer<ByteBuf> body) {
    return check(send(op, what, keys, waitFor, ServerWait.FOR_KEYS, body), what, waitFor);
  }

  /** A call the server answers at once (waits on no key), within the client's timeout. */
  private Reply immediate(byte op, String what, Consumer<ByteBuf> body) {
    return check(send(op, what, List.of(), timeout, ServerWait.NONE, body), what, timeout);
  }

  /**
   * Sends one request and returns its reply whatever its status ({@link #check} turns all but OK
   * into exceptions), reconnecting and resending (same request id) when the connection drops, until
   * {@code budget} from now has passed. Every call of this client goes through here: each has a
   * deadline, and waits on the server only when {@code wait} says so.
   *
   * @param waitedKeys the keys a timed wait is for, named in its timeout message
   * @param budget how long the whole call may take: the client's timeout, or the wait asked for
   */
  private Reply send(
      byte op,
      String what,
      List<String> waitedKeys,
      Duration budget,
      ServerWait wait,
      Consumer<ByteBuf> body) {
    long deadlineNs = System.nanoTime() + budget.toNanos();
    int id = nextId.incrementAndGet() & Integer.MAX_VALUE;
    if (id == 0) {
      id = nextId.incrementAndGet() & Integer.MAX_VALUE;
    }
    String lastLoss = null;
    while (true) {
      StoreConnection c = connection(deadlineNs, what);
      long remainingMs = Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime()));
      Consumer<ByteBuf> full =
          wait == ServerWait.NONE
              ? body
              : out -> {
                body.accept(out);
                out.writeLong(remainingMs);
              };
      try {
        return c.send(op, id, full)
            .get(deadlineNs - System.nanoTime() + REPLY_GRACE_NS, TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof ConnectionLostException)) {
          throw new StoreException(what + " failed: " + e.getCause(), e.getCause());
        }
        lastLoss = e.getCause().getMessage();
        dropIfCurrent(c);
        if (deadlineNs - System.nanoTime() < 0) {
          throw new DdpTimeoutException(
              what
                  + " timed out after "
                  + seconds(budget)
                  + ": lost the connection to the store at "
                  + address()
                  + " ("
                  + lastLoss
                  + ") and the deadline passed; is the launcher still running?");
        }
      } catch (TimeoutException e) {
        throw new DdpTimeoutException(
            what
                + " timed out after "
                + seconds(budget)
                + ": the store at "
                + address()
                + " did not answer"
                + (waitedKeys.isEmpty() ? "" : " (waiting for keys " + waitedKeys + ")")
                + "; is the launcher still running?");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StoreException(what + " was interrupted");
      }
    }
  }

  private Reply check(Reply r, String what, Duration budget) {
    switch (r.status()) {
      case STATUS_OK:
        return r;
      case STATUS_TIMEOUT:
        {
          List<String> missing = StoreCodec.readKeys(Unpooled.wrappedBuffer(r.body()));
          throw new DdpTimeoutException(
              what
                  + " timed out after "
                  + seconds(budget)
                  + ": still missing "
                  + missing
                  + " (no rank has set "
                  + (missing.size() == 1 ? "it" : "them")
                  + "; did the rank that publishes "
                  + (missing.size() == 1 ? "it" : "them")
                  + " fail or take another code path?)");
        }
      default:
        throw new StoreException(
            what + " refused by the store at " + address() + ": " + StoreConnection.errorText(r));
    }
  }

  private static String seconds(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? ms / 1000 + " s" : String.format("%.3f s", ms / 1000.0);
  }

  private synchronized void dropIfCurrent(StoreConnection c) {
    if (connection == c) {
      connection = null;
      c.close();
    }
  }

  /** The open connection, reconnecting with backoff until {@code deadlineNs}. */
  private synchronized StoreConnection connection(long deadlineNs, String what) {
    if (closed) {
      throw new StoreException(what + " on a closed store client (" + address() + ")");
    }
    if (connection != null && connection.isOpen()) {
      return connection;
    }
    connection = null;
    long backoffMs = 20;
    String lastError;
    while (true) {
      long remainingMs = TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime());
      try {
        connection =
            StoreConnection.open(
                loops, host, port, secret, clientId, Math.max(1, Math.min(remainingMs, 5000)));
        return connection;
      } catch (ConnectionLostException e) {
        lastError = e.getMessage();
      }
      if (deadlineNs - System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(backoffMs) < 0) {
        throw new DdpTimeoutException(
            what
                + " timed out: the store at "
                + address()
                + " could not be reached ("
                + lastError
                + "); is the launcher running, and is "
                + address()
                + " reachable from this host?");
      }
      try {
        Thread.sleep(backoffMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StoreException("interrupted while connecting to the store at " + address());
      }
      backoffMs = Math.min(1000, backoffMs * 2);
    }
  }

  @Override
  public String toString() {
    return "TcpStoreClient[" + address() + "]";
  }
}
