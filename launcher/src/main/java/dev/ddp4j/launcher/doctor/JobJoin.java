package dev.ddp4j.launcher.doctor;

import dev.ddp4j.DdpException;
import dev.ddp4j.Store;
import dev.ddp4j.collectives.store.ExchangeCodec;
import dev.ddp4j.collectives.store.StoreExchange;
import dev.ddp4j.launcher.NodeJoin;
import dev.ddp4j.launcher.StoreAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
import java.util.stream.IntStream;

/**
 * A multi-node doctor: every node's doctor joins the job's store through the launchers' own join
 * ({@link NodeJoin}: node 0, or with {@code --node-rank=-1} whoever can bind the address, hosts it;
 * the others connect proving the secret; every node waits for the others), then measures its clock
 * against node 0's and publishes its findings; node 0 then reports every node's. On top of the
 * join's keys ({@code ddp4j/launcher/...}, in NodeRendezvousDescriptor) the doctor adds:
 *
 * <pre>
 *   key (under ddp4j/doctor/)   value (UTF-8)
 *   ping/RANK                   set by node RANK (RANK > 0) to ask node 0 for its clock
 *   pong/RANK                   node 0's wall clock in ms when it answered
 *   report/RANK                 the node's findings, one line each
 *   done/RANK                   the node read what it needed; node 0 closes the store after all
 * </pre>
 *
 * Clock skew is NTP's estimate: node RANK sends the ping at t0 and sees the pong at t1 (its clock),
 * so node 0's clock read {@code pong} somewhere in between: offset = pong - (t0 + t1) / 2, within
 * (t1 - t0) / 2.
 */
final class JobJoin {

  static final String STORE = "store-join";
  static final String CLOCK = "clock";
  static final String NODES = "nodes";
  private static final String P = "ddp4j/doctor/";

  /** Skew beyond which logs of different nodes no longer line up (and NTP is evidently off). */
  static final long MAX_SKEW_MS = 1000;

  private JobJoin() {}

  /**
   * Joins, exchanges and returns this node's findings about the job (its own findings {@code local}
   * included in what node 0 reports), plus, on node 0, every other node's non-OK lines.
   */
  static List<Finding> run(Machine m, DoctorJob job, List<Finding> local, LongSupplier clockMs) {
    List<Finding> out = new ArrayList<>();
    String addr = job.masterAddr() + ":" + job.masterPort();
    NodeJoin.Joined joined;
    try {
      joined = NodeJoin.join(request(m, job), new JoinFindings(out, job, addr));
    } catch (NodeJoin.JoinException e) {
      out.add(failure(e, job, addr));
      return out;
    } catch (DdpException e) {
      out.add(lost(addr, e));
      return out;
    }
    try (joined) {
      Store store = joined.store();
      int rank = joined.nodeRank();
      out.addAll(clock(store, job, rank, clockMs));
      StringBuilder report = new StringBuilder();
      for (Finding f : local) {
        report.append(f.line()).append('\n');
      }
      for (Finding f : out) {
        report.append(f.line()).append('\n');
      }
      // Node 0 reads every node's report; the others only publish theirs.
      StoreExchange exchange = new StoreExchange(store, rank, job.nnodes(), job.joinTimeout());
      int[] readers = rank == 0 ? IntStream.range(0, job.nnodes()).toArray() : new int[0];
      List<String> reports =
          exchange.gatherOrMissing(P + "report/", report.toString(), readers, ExchangeCodec.UTF8);
      if (rank == 0) {
        out.addAll(others(joined.hosts(), reports, job));
      }
      store.set(P + "done/" + rank, new byte[0]);
      if (joined.server() != null) {
        List<String> done = new ArrayList<>();
        for (int r = 0; r < job.nnodes(); r++) {
          done.add(P + "done/" + r);
        }
        try {
          store.wait(done, job.joinTimeout());
        } catch (DdpException e) {
          // a node that vanished now has still reported: nothing left to serve it
        }
      }
      return out;
    } catch (DdpException e) {
      out.add(lost(addr, e));
      return out;
    }
  }

  private static NodeJoin.Request request(Machine m, DoctorJob job) {
    return new NodeJoin.Request(
        job.nnodes(),
        job.nodeRank(),
        job.nprocPerNode(),
        m.hostName(),
        StoreAddress.tcp(job.masterAddr(), job.masterPort()),
        job.masterAddr(),
        job.secret(),
        job.joinTimeout(),
        job.joinTimeout());
  }

  /** The join's progress as the doctor's OK lines. */
  private record JoinFindings(List<Finding> out, DoctorJob job, String addr)
      implements NodeJoin.Progress {

    @Override
    public void rankTaken(int nodeRank, boolean hosting) {
      out.add(
          Finding.ok(
              STORE,
              "joined the store at "
                  + addr
                  + " as node "
                  + nodeRank
                  + (hosting ? " (hosting it)" : "")
                  + ", proving the job secret"));
    }

    @Override
    public void allJoined(int nodeRank, boolean hosting) {
      out.add(Finding.ok(NODES, "all " + job.nnodes() + " nodes joined"));
    }
  }

  /** A failed join as the doctor words it: what it saw and the fix, per step. */
  private static Finding failure(NodeJoin.JoinException e, DoctorJob job, String addr) {
    return switch (e.step()) {
      case HOST ->
          Finding.fail(
              STORE,
              "node 0 cannot host the store at " + addr + ": " + firstLine(e.getMessage()),
              "--master-addr must be this host's address and --master-port free here");
      case REACH ->
          Finding.fail(
              STORE,
              "the store at "
                  + addr
                  + " is not reachable from this node within "
                  + job.joinTimeout().toSeconds()
                  + " s",
              "start node 0's doctor (it hosts the store) and check that "
                  + addr
                  + " is this job's --master-addr/--master-port and open in node 0's firewall");
      case ADMIT ->
          Finding.fail(STORE, firstLine(e.getMessage()), "give every node the same job secret");
      case RANK ->
          Finding.fail(
              STORE,
              firstLine(e.getMessage()),
              "run one doctor per node, with the job's --nnodes and --node-rank");
      case NODES ->
          e.missingNodes().isEmpty()
              ? Finding.fail(
                  NODES,
                  firstLine(e.getMessage()),
                  "run the doctor on every node with the same flags")
              : Finding.fail(
                  NODES,
                  (job.nnodes() - e.missingNodes().size())
                      + " of "
                      + job.nnodes()
                      + " nodes joined within "
                      + job.joinTimeout().toSeconds()
                      + " s (missing node rank(s) "
                      + join(e.missingNodes())
                      + ")",
                  "run the doctor on every node with the same flags; check "
                      + addr
                      + " is reachable from them");
    };
  }

  private static Finding lost(String addr, DdpException e) {
    return Finding.fail(
        STORE,
        "lost the store at " + addr + ": " + firstLine(e.getMessage()),
        "rerun on every node");
  }

  /** Node 0 answers every ping; every other node pings once and reports its offset. */
  private static List<Finding> clock(Store store, DoctorJob job, int rank, LongSupplier clockMs) {
    if (rank == 0) {
      for (int r = 1; r < job.nnodes(); r++) {
        store.get(P + "ping/" + r, job.joinTimeout());
        store.set(
            P + "pong/" + r,
            Long.toString(clockMs.getAsLong()).getBytes(StandardCharsets.US_ASCII));
      }
      return List.of(
          Finding.ok(CLOCK, "node 0's clock is the reference the other nodes report against"));
    }
    long t0 = clockMs.getAsLong();
    store.set(P + "ping/" + rank, new byte[] {1});
    long pong =
        Long.parseLong(
            new String(
                store.get(P + "pong/" + rank, job.joinTimeout()), StandardCharsets.US_ASCII));
    long t1 = clockMs.getAsLong();
    long offset = pong - (t0 + t1) / 2;
    long within = (t1 - t0 + 1) / 2;
    String saw =
        String.format(
            Locale.ROOT,
            "node 0's clock is %+d ms from this node's (within %d ms)",
            offset,
            within);
    if (Math.abs(offset) - within > MAX_SKEW_MS) {
      return List.of(
          Finding.warn(
              CLOCK,
              saw + ": logs and timestamps of the nodes do not line up",
              "run an NTP client (chronyd, systemd-timesyncd) on every node"));
    }
    return List.of(Finding.ok(CLOCK, saw));
  }

  /** Every other node's WARN and FAIL lines, prefixed with its rank and host. */
  private static List<Finding> others(List<String> hosts, List<String> reports, DoctorJob job) {
    List<Finding> out = new ArrayList<>();
    for (int r = 1; r < job.nnodes(); r++) {
      String host = hosts.get(r);
      String report = reports.get(r);
      if (report == null) {
        out.add(
            Finding.fail(
                "node " + r,
                host + " joined but sent no report within " + job.joinTimeout().toSeconds() + " s",
                "look at that node's doctor output"));
        continue;
      }
      int bad = 0;
      for (String line : report.split("\n")) {
        Finding.Status s = statusOf(line);
        if (s != Finding.Status.OK && s != null) {
          bad++;
          String rest = line.substring(s.name().length()).trim();
          int fix = rest.indexOf(" -- fix: ");
          out.add(
              new Finding(
                  s,
                  "node " + r,
                  host + ": " + (fix < 0 ? rest : rest.substring(0, fix)),
                  fix < 0 ? "" : rest.substring(fix + " -- fix: ".length())));
        }
      }
      if (bad == 0) {
        out.add(Finding.ok("node " + r, host + ": every check OK"));
      }
    }
    return out;
  }

  private static Finding.Status statusOf(String line) {
    for (Finding.Status s : Finding.Status.values()) {
      if (line.startsWith(s.name() + " ")) {
        return s;
      }
    }
    return null;
  }

  private static String join(List<Integer> ids) {
    return ids.stream().map(String::valueOf).reduce((a, b) -> a + ", " + b).orElse("");
  }

  private static String firstLine(String s) {
    int nl = s == null ? -1 : s.indexOf('\n');
    return nl < 0 ? String.valueOf(s) : s.substring(0, nl);
  }
}
