package dev.ddp4j.launcher.topo;

import dev.ddp4j.collectives.plan.Algorithm;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.plan.Prediction;
import dev.ddp4j.collectives.topology.Node;
import dev.ddp4j.collectives.topology.Route;
import dev.ddp4j.collectives.topology.Topology;
import dev.ddp4j.launcher.JsonText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code topo --json}: {@code gpus} (device index, name, host, bus id), {@code links} (every device
 * pair: path type and bandwidth), {@code rings} (device indices, best first), {@code plan} (per
 * size: chosen algorithm, predicted bus bandwidth of each), {@code gpuOrder}, {@code warnings},
 * {@code topologyHash}.
 */
final class TopoJson {

  private TopoJson() {}

  static String render(Topology t, Plan plan) {
    List<String> gpus = new ArrayList<>();
    for (int i = 0; i < t.deviceCount(); i++) {
      Node n = t.device(i);
      gpus.add(
          String.format(
              Locale.ROOT,
              "{\"index\": %d, \"name\": %s, \"host\": %d, \"busId\": %s}",
              i,
              JsonText.str(n.name()),
              n.host(),
              JsonText.str(n.attr("busid", ""))));
    }
    List<String> links = new ArrayList<>();
    for (int a = 0; a < t.deviceCount(); a++) {
      for (int b = a + 1; b < t.deviceCount(); b++) {
        Route r = t.route(a, b);
        links.add(
            String.format(
                Locale.ROOT,
                "{\"a\": %d, \"b\": %d, \"type\": %s, \"gbps\": %s}",
                a,
                b,
                JsonText.str(r.label()),
                num(r.gbps())));
      }
    }
    List<String> rings = new ArrayList<>();
    for (int[] ring : plan.rings()) {
      List<String> ids = new ArrayList<>();
      for (int rank : ring) {
        ids.add(Integer.toString(plan.devices()[rank]));
      }
      rings.add("[" + String.join(", ", ids) + "]");
    }
    List<String> entries = new ArrayList<>();
    for (long bytes : TopoReport.SIZES) {
      Prediction p = plan.predictionFor(bytes);
      List<String> bw = new ArrayList<>();
      for (Algorithm a : p.timeUs().keySet()) {
        bw.add(JsonText.str(a.id()) + ": " + num(p.busBwGbps(a)));
      }
      entries.add(
          String.format(
              Locale.ROOT,
              "{\"bytes\": %d, \"chosen\": %s, \"predictedBusBwGBps\": {%s}}",
              bytes,
              JsonText.str(p.chosen().id()),
              String.join(", ", bw)));
    }
    List<String> order = new ArrayList<>();
    for (int d : plan.devices()) {
      order.add(Integer.toString(d));
    }
    List<String> warnings = plan.warnings().stream().map(JsonText::str).toList();
    return "{\n"
        + array("gpus", gpus, ", ")
        + array("links", links, ", ")
        + array("rings", rings, ", ")
        + array("plan", entries, ",\n    ")
        + array("gpuOrder", order, ", ")
        + array("warnings", warnings, ", ")
        + "  \"topologyHash\": "
        + JsonText.str(plan.topologyHash())
        + "\n}";
  }

  /** One array member of the report, with the comma and line end that follow it. */
  private static String array(String name, List<String> items, String separator) {
    return "  \"" + name + "\": [" + String.join(separator, items) + "],\n";
  }

  static String num(double v) {
    return Double.isFinite(v) ? String.format(Locale.ROOT, "%.2f", v) : "null";
  }
}
