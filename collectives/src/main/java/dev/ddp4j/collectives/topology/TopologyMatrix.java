package dev.ddp4j.collectives.topology;

/** Prints a topology's device matrix the way {@code nvidia-smi topo -m} does, legend included. */
public final class TopologyMatrix {

  private TopologyMatrix() {}

  /** The matrix of path classes between the first {@code count} devices, with the legend. */
  public static String render(Topology t, int count) {
    StringBuilder sb = new StringBuilder("\t");
    for (int j = 0; j < count; j++) {
      sb.append(t.deviceLabel(j)).append('\t');
    }
    sb.append("NUMA Affinity\n");
    for (int i = 0; i < count; i++) {
      sb.append(t.deviceLabel(i));
      for (int j = 0; j < count; j++) {
        sb.append('\t').append(i == j ? " X " : t.route(i, j).label());
      }
      sb.append('\t').append(t.device(i).attr("numaid", "N/A")).append('\n');
    }
    sb.append("\nLegend:\n\n");
    for (PathType p : PathType.values()) {
      if (p == PathType.LOC && t.hasGpus()) {
        continue;
      }
      String name = p == PathType.NV ? "NV#" : p.name();
      sb.append(String.format("  %-4s = %s%n", name, p.meaning()));
    }
    return sb.toString();
  }
}
