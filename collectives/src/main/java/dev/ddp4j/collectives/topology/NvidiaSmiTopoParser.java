package dev.ddp4j.collectives.topology;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the text of {@code nvidia-smi topo -m} as users paste it: tabs or spaces, the ANSI
 * underline codes around the header (with or without their ESC byte), NIC rows and the NIC legend,
 * the CPU / NUMA affinity columns and the legend under the matrix.
 *
 * <p>The matrix gives only path classes, so the PCIe tree is rebuilt from them: devices whose pairs
 * are PIX share a switch, PXB pairs meet at a second switch level, PHB pairs share a host bridge,
 * NODE pairs meet at the CPU, SYS pairs are on different sockets. Speeds the text does not give are
 * assumed: PCIe Gen4 x16, 25 GB/s per NVLink, 100 Gb/s NICs ({@link Bandwidths}).
 */
public final class NvidiaSmiTopoParser {

  private static final Pattern ANSI = Pattern.compile("\u001B?\\[[0-9;]*m");
  private static final Pattern DEVICE = Pattern.compile("(GPU\\d+|NIC\\d+|mlx\\d+_\\d+)");
  private static final Pattern NIC_LEGEND = Pattern.compile("^\\s*(NIC\\d+)\\s*:\\s*(\\S+)\\s*$");
  private static final Pattern NV = Pattern.compile("NV(\\d+)");

  /** A GPU with more NVLinks than this to its peers in total must reach them through NVSwitch. */
  static final int MAX_DIRECT_NVLINKS = 18;

  private NvidiaSmiTopoParser() {}

  /**
   * Parses the text.
   *
   * @throws IllegalArgumentException naming the line and what was expected when the text is not an
   *     nvidia-smi topology matrix
   */
  public static Topology parse(String text) {
    String[] lines = ANSI.matcher(text.replace("\r", "")).replaceAll("").split("\n");
    int header = -1;
    List<String> names = new ArrayList<>();
    for (int i = 0; i < lines.length && header < 0; i++) {
      String[] tok = lines[i].trim().split("\\s+");
      if (tok.length > 0 && tok[0].equals("GPU0")) {
        header = i;
        for (String s : tok) {
          if (!DEVICE.matcher(s).matches()) {
            break;
          }
          names.add(s);
        }
      }
    }
    if (header < 0) {
      throw new IllegalArgumentException(
          "not an nvidia-smi topology matrix: no header line starting with GPU0 (paste the whole"
              + " output of `nvidia-smi topo -m`)");
    }
    int n = names.size();
    String[][] cells = new String[n][n];
    String[] cpuAffinity = new String[n];
    String[] numa = new String[n];
    Map<String, String> nicNames = new HashMap<>();
    for (int i = header + 1; i < lines.length; i++) {
      String[] tok = lines[i].trim().split("\\s+");
      int row = names.indexOf(tok[0]);
      if (row >= 0 && tok.length > n) {
        for (int c = 0; c < n; c++) {
          cells[row][c] = tok[c + 1];
        }
        cpuAffinity[row] = tok.length > n + 1 ? tok[n + 1] : "N/A";
        numa[row] = tok.length > n + 2 ? tok[n + 2] : "N/A";
      }
      Matcher m = NIC_LEGEND.matcher(lines[i]);
      if (m.matches()) {
        nicNames.put(m.group(1), m.group(2));
      }
    }
    for (int r = 0; r < n; r++) {
      if (cells[r][0] == null) {
        throw new IllegalArgumentException(
            "nvidia-smi matrix has a column " + names.get(r) + " but no row for it");
      }
    }
    return new MatrixTopology(names, cells, cpuAffinity, numa, nicNames).build();
  }

  /** The NVLink count of a cell such as {@code NV12}, or 0. */
  static int nvlinks(String cell) {
    Matcher m = NV.matcher(cell);
    return m.matches() ? Integer.parseInt(m.group(1)) : 0;
  }

  /** Keeps insertion order of affinity strings so NUMA ids derived from them are stable. */
  static Map<String, Integer> indexOf(String[] values) {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (String v : values) {
      if (v != null && !v.equals("N/A")) {
        out.putIfAbsent(v, out.size());
      }
    }
    return out;
  }
}
