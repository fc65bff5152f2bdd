package dev.ddp4j.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The complete events of a Chrome trace written by ddp4j's Timeline: name, start and duration in
 * us.
 */
final class TraceEvents {

  private record Event(String name, double ts, double dur) {}

  private static final Pattern EVENT =
      Pattern.compile(
          "\\{\"name\":\"([^\"]*)\",\"ph\":\"X\",\"pid\":\\d+,\"tid\":\\d+,\"ts\":([0-9.]+),\"dur\":([0-9.]+)\\}");

  private final List<Event> events;

  private TraceEvents(List<Event> events) {
    this.events = events;
  }

  static TraceEvents parse(String json) {
    List<Event> out = new ArrayList<>();
    Matcher m = EVENT.matcher(json);
    while (m.find()) {
      out.add(
          new Event(m.group(1), Double.parseDouble(m.group(2)), Double.parseDouble(m.group(3))));
    }
    return new TraceEvents(out);
  }

  double firstStart(String prefix) {
    return events.stream()
        .filter(e -> e.name().startsWith(prefix))
        .mapToDouble(Event::ts)
        .min()
        .orElseThrow(() -> new AssertionError("no event named " + prefix + "* in the trace"));
  }

  double firstEnd(String prefix) {
    return events.stream()
        .filter(e -> e.name().startsWith(prefix))
        .mapToDouble(e -> e.ts() + e.dur())
        .min()
        .orElseThrow(() -> new AssertionError("no event named " + prefix + "* in the trace"));
  }

  long count(String prefix) {
    return events.stream().filter(e -> e.name().startsWith(prefix)).count();
  }
}
