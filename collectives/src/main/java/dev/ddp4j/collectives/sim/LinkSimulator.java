package dev.ddp4j.collectives.sim;

import dev.ddp4j.collectives.plan.CostParams;
import dev.ddp4j.collectives.schedule.RankSchedule;
import dev.ddp4j.collectives.schedule.Schedule;
import dev.ddp4j.collectives.schedule.Step;
import dev.ddp4j.collectives.schedule.StepKind;
import dev.ddp4j.collectives.topology.Route;
import dev.ddp4j.collectives.topology.Topology;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Replays a {@link Schedule} on a topology, link by link, to predict its time. Each rank's channel
 * programs run in step order; a message leaves when its SEND runs (and, with {@code slots} messages
 * already unreceived on that pair and channel, once the oldest is received), occupies every
 * directed link of its route for {@code bytes / link bandwidth} in arrival order (so flows sharing
 * a link queue behind each other and get its bandwidth between them), travels at most at one
 * channel's rate, and arrives after the route's latency. A receive completes when its message has
 * arrived, plus the step overhead and, for RECV_REDUCE, the time to reduce it.
 *
 * <p>Steps are taken in time order, so links are reserved in the order the transfers happen.
 */
public final class LinkSimulator {

  private final Topology t;
  private final int[] devices;
  private final CostParams params;
  private final int slots;
  private final int elementBytes;
  private final double[] freeAtUs;
  private final double[] busyUs;
  private final Map<Long, List<double[]>> messages = new HashMap<>();
  private final Map<Long, List<int[]>> waiting = new HashMap<>();
  private final PriorityQueue<double[]> ready =
      new PriorityQueue<>(
          (a, b) -> a[0] != b[0] ? Double.compare(a[0], b[0]) : Double.compare(a[1], b[1]));
  private long sent;

  private LinkSimulator(Topology t, int[] devices, CostParams params, int slots, int elementBytes) {
    this.t = t;
    this.devices = devices;
    this.params = params;
    this.slots = slots;
    this.elementBytes = elementBytes;
    this.freeAtUs = new double[2 * t.links().size()];
    this.busyUs = new double[2 * t.links().size()];
  }

  /**
   * Simulates {@code s} with rank r on device {@code devices[r]}.
   *
   * @param slots unreceived messages a pair and channel may hold (the transport's depth)
   * @throws IllegalStateException naming the stuck ranks if the schedule deadlocks
   */
  public static SimResult run(
      Topology t, int[] devices, Schedule s, int elementBytes, CostParams params, int slots) {
    if (devices.length != s.nRanks()) {
      throw new IllegalArgumentException(
          s.nRanks() + "-rank schedule on " + devices.length + " devices (expected: one per rank)");
    }
    return new LinkSimulator(t, devices, params, slots, elementBytes).replay(s);
  }

  private static long key(int from, int to, int channel) {
    return ((long) from << 42) | ((long) to << 21) | channel;
  }

  private SimResult replay(Schedule s) {
    int n = s.nRanks();
    int channels = s.channelCount();
    int[][] cursor = new int[n][channels];
    double[][] clock = new double[n][channels];
    int[][] recvIndex = new int[n * channels][];
    Map<Long, Integer> sentOn = new HashMap<>();
    Map<Long, Integer> receivedOn = new HashMap<>();
    for (int r = 0; r < n; r++) {
      for (int c = 0; c < s.rank(r).channels().size(); c++) {
        ready.add(new double[] {0, r, c});
      }
    }
    double end = 0;
    while (!ready.isEmpty()) {
      double[] top = ready.poll();
      int r = (int) top[1];
      int c = (int) top[2];
      clock[r][c] = Math.max(clock[r][c], top[0]);
      List<Step> steps = s.rank(r).channels().get(c);
      boolean progressed = true;
      while (progressed && cursor[r][c] < steps.size()) {
        Step step = steps.get(cursor[r][c]);
        progressed =
            step.kind() == StepKind.SEND
                ? send(r, c, step, clock, sentOn)
                : receive(r, c, step, clock, receivedOn);
        if (progressed) {
          cursor[r][c]++;
          // Yield to other programs in time order once this one's clock moved past the queue head.
          if (!ready.isEmpty() && clock[r][c] > ready.peek()[0] && cursor[r][c] < steps.size()) {
            ready.add(new double[] {clock[r][c], r, c});
            break;
          }
        }
      }
      end = Math.max(end, clock[r][c]);
    }
    List<String> stuck = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      RankSchedule rs = s.rank(r);
      for (int c = 0; c < rs.channels().size(); c++) {
        if (cursor[r][c] < rs.channels().get(c).size()) {
          stuck.add(
              "rank "
                  + r
                  + " ch "
                  + c
                  + " at step "
                  + cursor[r][c]
                  + " "
                  + rs.channels().get(c).get(cursor[r][c]));
        }
      }
    }
    if (!stuck.isEmpty()) {
      throw new IllegalStateException(
          "schedule deadlocks in simulation: " + String.join("; ", stuck));
    }
    int busiest = -1;
    double most = 0;
    for (int h = 0; h < busyUs.length; h++) {
      if (busyUs[h] > most) {
        most = busyUs[h];
        busiest = h >> 1;
      }
    }
    return new SimResult(end, sent, busiest, most);
  }

  private boolean send(int r, int c, Step step, double[][] clock, Map<Long, Integer> sentOn) {
    long k = key(r, step.peer(), c);
    List<double[]> queue = messages.computeIfAbsent(k, x -> new ArrayList<>());
    int index = queue.size();
    double start = clock[r][c];
    if (index >= slots) {
      double received = queue.get(index - slots)[1];
      if (received < 0) {
        waiting.computeIfAbsent(k | (1L << 62), x -> new ArrayList<>()).add(new int[] {r, c});
        return false;
      }
      start = Math.max(start, received);
    }
    Route route = t.route(devices[r], devices[step.peer()]);
    double bytes = (double) step.count() * elementBytes;
    double txStart = start;
    for (int h : route.hops()) {
      txStart = Math.max(txStart, freeAtUs[h]);
    }
    double rate = Math.min(route.gbps(), params.channelGbps());
    for (int h : route.hops()) {
      double us = bytes / (t.link(h >> 1).gbps() * 1e3);
      freeAtUs[h] = txStart + us;
      busyUs[h] += us;
    }
    double arrival = txStart + bytes / (rate * 1e3) + route.latencyUs();
    queue.add(new double[] {arrival, -1});
    sent++;
    clock[r][c] = start;
    wake(k, arrival);
    return true;
  }

  private boolean receive(
      int r, int c, Step step, double[][] clock, Map<Long, Integer> receivedOn) {
    long k = key(step.peer(), r, c);
    int index = receivedOn.getOrDefault(k, 0);
    List<double[]> queue = messages.get(k);
    if (queue == null || queue.size() <= index) {
      waiting.computeIfAbsent(k, x -> new ArrayList<>()).add(new int[] {r, c});
      return false;
    }
    double[] msg = queue.get(index);
    double bytes = (double) step.count() * elementBytes;
    double done = Math.max(clock[r][c], msg[0]) + params.stepOverheadUs();
    if (step.kind() == StepKind.RECV_REDUCE) {
      done += bytes / (params.reduceGbps() * 1e3);
    }
    msg[1] = done;
    receivedOn.put(k, index + 1);
    clock[r][c] = done;
    wake(k | (1L << 62), done);
    return true;
  }

  private void wake(long k, double atUs) {
    List<int[]> w = waiting.remove(k);
    if (w != null) {
      for (int[] rc : w) {
        ready.add(new double[] {atUs, rc[0], rc[1]});
      }
    }
  }
}
