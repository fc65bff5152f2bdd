package dev.ddp4j.collectives.cuda;

import dev.ddp4j.Store;
import dev.ddp4j.collectives.cuda.PeerRouting.RankPeer;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.store.ExchangeCodec;
import dev.ddp4j.collectives.store.StoreExchange;
import dev.ddp4j.collectives.transport.NodeIdentity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import jcuda.driver.CUdevice;
import jcuda.driver.JCudaDriver;

/**
 * Finds out, before any IPC handle is opened, how the ranks of a cuda group can reach each other,
 * in two rounds through the store so that every rank decides alike:
 *
 * <pre>
 *   store key                     value (UTF-8)
 *   &lt;prefix&gt;/peer/&lt;rank&gt;          host identity \n device ordinal \n PCI bus id \n settings
 *   &lt;prefix&gt;/access/&lt;rank&gt;        one char per rank: 1 peer access, 0 none, ? not asked
 * </pre>
 *
 * The settings (peer access, staging) must be the same on every rank, else every rank fails naming
 * both. A rank asks cuDeviceCanAccessPeer only for peers on its host whose GPU it can see by bus
 * id.
 */
final class PeerDirectory {

  private PeerDirectory() {}

  /**
   * What every rank published: the pairs' routes and every rank's PCI bus id.
   *
   * @param busIds index = rank
   */
  record Directory(PeerRouting routing, String[] busIds) {

    /** Ranks whose GPU is {@code rank}'s GPU (same host and bus id), {@code rank} included. */
    int ranksOnGpuOf(int rank) {
      int n = 0;
      for (int r = 0; r < busIds.length; r++) {
        boolean sameHost = routing.peers().get(r).host().equals(routing.peers().get(rank).host());
        n += sameHost && busIds[r].equalsIgnoreCase(busIds[rank]) ? 1 : 0;
      }
      return n;
    }
  }

  /** Publishes this rank, reads every rank, and decides each pair's route (collective). */
  static Directory exchange(
      int rank,
      int size,
      int deviceOrdinal,
      CUdevice device,
      Store store,
      String prefix,
      Duration timeout,
      PeerAccessSettings settings,
      String agreed) {
    String host = NodeIdentity.current();
    String[] bus = new String[1];
    Cu.check(JCudaDriver.cuDeviceGetPCIBusId(bus, 32, device), "cuDeviceGetPCIBusId");
    String myBus = bus[0].trim();
    StoreExchange exchange = new StoreExchange(store, rank, size, timeout);
    List<String> said =
        exchange.allGather(
            prefix + "/peer/",
            host + "\n" + deviceOrdinal + "\n" + myBus + "\n" + agreed,
            ExchangeCodec.UTF8);
    List<RankPeer> peers = new ArrayList<>();
    String[] busIds = new String[size];
    for (int r = 0; r < size; r++) {
      String[] f = said.get(r).split("\n", 4);
      PeerAccessSettings.checkSame(rank, agreed, r, f[3]);
      peers.add(new RankPeer(r, f[0], Integer.parseInt(f[1])));
      busIds[r] = f[2];
    }
    StringBuilder row = new StringBuilder();
    for (int r = 0; r < size; r++) {
      row.append(r == rank ? '1' : canAccess(device, myBus, host, peers.get(r), busIds[r]));
    }
    List<String> rows = exchange.allGather(prefix + "/access/", row.toString(), ExchangeCodec.UTF8);
    int[][] access = new int[size][size];
    for (int r = 0; r < size; r++) {
      String v = rows.get(r);
      for (int q = 0; q < size; q++) {
        char c = v.charAt(q);
        access[r][q] = c == '1' ? 1 : c == '0' ? 0 : -1;
      }
    }
    return new Directory(PeerRouting.decide(peers, access, settings), busIds);
  }

  private static char canAccess(CUdevice mine, String myBus, String host, RankPeer p, String bus) {
    if (!p.host().equals(host) || bus.equalsIgnoreCase(myBus)) {
      return '?';
    }
    CUdevice other = new CUdevice();
    if (JCudaDriver.cuDeviceGetByPCIBusId(other, bus) != 0) {
      return '?'; // not visible to this process (CUDA_VISIBLE_DEVICES); IPC will tell
    }
    int[] can = new int[1];
    Cu.check(JCudaDriver.cuDeviceCanAccessPeer(can, mine, other), "cuDeviceCanAccessPeer");
    return can[0] == 0 ? '0' : '1';
  }
}
