package dev.ddp4j.launcher.topo;

import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.plan.Prediction;
import dev.ddp4j.collectives.plan.Sizes;
import dev.ddp4j.collectives.topology.PathType;
import dev.ddp4j.collectives.topology.Route;
import dev.ddp4j.collectives.topology.Topology;
import java.util.Locale;

/**
 * {@code topo --svg}: each host's devices on a circle, coloured by NUMA node; NVLink pairs as green
 * lines as thick as their link count; the first ring channel as arrows, blue over NVLink, red where
 * it leaves NVLink (PCIe, the socket link, the network); the chosen algorithm per size below.
 */
final class TopoSvg {

  private static final int HOST_SIZE = 420;
  private static final String[] NUMA_FILL = {"#e8f0fe", "#fef3e0", "#e6f4ea", "#fce8e6"};

  private TopoSvg() {}

  static String render(Topology t, Plan plan) {
    int hosts = t.hostCount();
    int n = t.deviceCount();
    double[][] xy = new double[n][];
    int[] perHost = new int[hosts];
    for (int i = 0; i < n; i++) {
      perHost[t.hostOf(i)]++;
    }
    int[] seen = new int[hosts];
    for (int i = 0; i < n; i++) {
      int h = t.hostOf(i);
      double angle = 2 * Math.PI * seen[h]++ / perHost[h] - Math.PI / 2;
      double cx = HOST_SIZE / 2.0 + h * HOST_SIZE;
      double cy = 60 + HOST_SIZE / 2.0;
      xy[i] = new double[] {cx + 150 * Math.cos(angle), cy + 150 * Math.sin(angle)};
    }
    int width = Math.max(640, hosts * HOST_SIZE);
    int height = HOST_SIZE + 220;
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"13\">%n",
            width,
            height));
    sb.append("<defs>");
    for (String c : new String[] {"1a73e8", "d93025"}) {
      sb.append("<marker id=\"arrow" + c + "\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\"")
          .append(" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\">")
          .append("<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#" + c + "\"/></marker>");
    }
    sb.append("</defs>\n");
    sb.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    sb.append(
        String.format(
            Locale.ROOT,
            "<text x=\"16\" y=\"28\" font-size=\"17\" font-weight=\"bold\">%d %s, %d host(s): NVLink (green), ring channel 0 (blue over NVLink, red elsewhere)</text>%n",
            n,
            t.hasGpus() ? "GPUs" : "CPU ranks",
            hosts));
    for (int a = 0; a < n; a++) {
      for (int b = a + 1; b < n; b++) {
        Route r = t.route(a, b);
        if (r.type() == PathType.NV) {
          sb.append(
              String.format(
                  Locale.ROOT,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#34a853\" stroke-opacity=\"0.55\" stroke-width=\"%.1f\"/>%n",
                  xy[a][0],
                  xy[a][1],
                  xy[b][0],
                  xy[b][1],
                  1 + r.nvLanes() / 3.0));
          if (n <= 8) {
            sb.append(
                label(
                    (xy[a][0] + xy[b][0]) / 2,
                    (xy[a][1] + xy[b][1]) / 2 - 4,
                    r.label(),
                    "#188038"));
          }
        }
      }
    }
    int[] ring = plan.rings().get(0);
    for (int i = 0; i < ring.length && ring.length > 1; i++) {
      int a = plan.devices()[ring[i]];
      int b = plan.devices()[ring[(i + 1) % ring.length]];
      Route r = t.route(a, b);
      String color = r.type() == PathType.NV ? "#1a73e8" : "#d93025";
      double[] p = shorten(xy[a], xy[b], 30);
      double mx = (p[0] + p[2]) / 2 + (p[3] - p[1]) * 0.12;
      double my = (p[1] + p[3]) / 2 - (p[2] - p[0]) * 0.12;
      sb.append(
          String.format(
              Locale.ROOT,
              "<path d=\"M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f\" fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\" marker-end=\"url(#arrow%s)\"/>%n",
              p[0],
              p[1],
              mx,
              my,
              p[2],
              p[3],
              color,
              color.substring(1)));
      if (r.type() != PathType.NV) {
        sb.append(label(mx, my, r.label() + " " + Math.round(r.gbps()) + " GB/s", color));
      }
    }
    for (int i = 0; i < n; i++) {
      int numa = Integer.parseInt(t.device(i).attr("numaid", "0").replaceAll("[^0-9]", "0"));
      sb.append(
          String.format(
              Locale.ROOT,
              "<rect x=\"%.1f\" y=\"%.1f\" width=\"64\" height=\"34\" rx=\"6\" fill=\"%s\" stroke=\"#3c4043\"/>%n",
              xy[i][0] - 32,
              xy[i][1] - 17,
              NUMA_FILL[numa % NUMA_FILL.length]));
      sb.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-weight=\"bold\">%s</text>%n",
              xy[i][0],
              xy[i][1] + 5,
              esc(t.device(i).name())));
    }
    double y = HOST_SIZE + 90;
    sb.append(
        String.format(
            Locale.ROOT,
            "<text x=\"16\" y=\"%.0f\" font-weight=\"bold\">size: chosen algorithm (predicted bus bandwidth)</text>%n",
            y));
    for (long bytes : TopoReport.SIZES) {
      y += 20;
      Prediction p = plan.predictionFor(bytes);
      sb.append(
          String.format(
              Locale.ROOT,
              "<text x=\"16\" y=\"%.0f\">%s: %s (%.1f GB/s)</text>%n",
              y,
              Sizes.human(bytes),
              p.chosen().id(),
              p.busBwGbps(p.chosen())));
    }
    return sb.append("</svg>\n").toString();
  }

  private static double[] shorten(double[] a, double[] b, double by) {
    double dx = b[0] - a[0];
    double dy = b[1] - a[1];
    double len = Math.max(1, Math.hypot(dx, dy));
    double k = Math.min(0.45, by / len);
    return new double[] {a[0] + dx * k, a[1] + dy * k, b[0] - dx * k, b[1] - dy * k};
  }

  private static String label(double x, double y, String text, String color) {
    return String.format(
        Locale.ROOT,
        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"%s\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">%s</text>%n",
        x,
        y,
        color,
        esc(text));
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
