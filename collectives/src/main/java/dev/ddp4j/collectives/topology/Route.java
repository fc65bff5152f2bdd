package dev.ddp4j.collectives.topology;

/**
 * How data goes from one device to another: the directed links crossed, in order.
 *
 * @param from source device index
 * @param to destination device index
 * @param hops directed link ids ({@link Link#directedFrom}), source side first; empty for self
 * @param gbps bottleneck bandwidth per direction along the route, GB/s (infinite for self)
 * @param latencyUs sum of link latencies
 * @param type the nvidia-smi class of the route
 * @param nvLanes NVLinks bonded on the narrowest NVLink hop when {@code type == NV}, else 0
 */
public record Route(
    int from, int to, int[] hops, double gbps, double latencyUs, PathType type, int nvLanes) {

  /** nvidia-smi's cell text: {@code X}, {@code NV12}, {@code PIX}, {@code SYS}... */
  public String label() {
    return type == PathType.NV ? "NV" + nvLanes : type.name();
  }

  /** Link id of a directed link id. */
  public static int linkOf(int directedLinkId) {
    return directedLinkId >> 1;
  }
}
