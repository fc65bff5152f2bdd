package dev.ddp4j.collectives.cpu;

import dev.ddp4j.collectives.log.DebugLog;
import dev.ddp4j.collectives.plan.Algorithm;
import dev.ddp4j.collectives.plan.PlannerOptions;
import dev.ddp4j.collectives.stall.StallInspector;
import dev.ddp4j.collectives.transport.TransportConfig;
import dev.ddp4j.spi.Settings;
import java.util.Optional;

/**
 * What a cpu group is told, read once from the settings: its transports, the algorithm the user
 * forced, how much it logs, when it reports a stalled collective, how many collectives its flight
 * recorder keeps. Groups that serve another group (the host half of a device group, the lanes of
 * the cuda group's host-staged path) get a variant of the same options instead of a rewritten
 * environment.
 *
 * @param transport shared memory and socket settings
 * @param forced {@code DDP4J_ALGO} as parsed, which may name a GPU-only algorithm (the group then
 *     warns and plans per size)
 * @param logLevel {@code DDP4J_DEBUG}
 * @param stallWarnMs {@code DDP4J_STALL_WARN_SECONDS} in ms, 0 for off
 * @param flightRecorderEntries {@code DDP4J_FLIGHT_RECORDER_ENTRIES}, default 64
 */
public record CpuGroupOptions(
    TransportConfig transport,
    Optional<Algorithm> forced,
    DebugLog.Level logLevel,
    long stallWarnMs,
    int flightRecorderEntries) {

  public static final int DEFAULT_FLIGHT_RECORDER_ENTRIES = 64;

  /** The options {@code settings} give. */
  public static CpuGroupOptions from(Settings settings) {
    return new CpuGroupOptions(
        TransportConfig.fromEnvironment(settings),
        PlannerOptions.fromEnvironment(settings, false).forced(),
        DebugLog.level(settings),
        StallInspector.warnMs(settings),
        settings.whole(
            "DDP4J_FLIGHT_RECORDER_ENTRIES",
            DEFAULT_FLIGHT_RECORDER_ENTRIES,
            1,
            Integer.MAX_VALUE));
  }

  /**
   * For a cpu group that serves a device group: there {@code DDP4J_ALGO} names the device group's
   * algorithm ({@code ll}, {@code twoshot}), not one for host buffers.
   */
  public CpuGroupOptions withoutForcedAlgorithm() {
    return new CpuGroupOptions(
        transport, Optional.empty(), logLevel, stallWarnMs, flightRecorderEntries);
  }

  /**
   * For the lanes of a cuda group's host-staged path: the cuda group logs the routes and watches
   * its collectives itself, so the lanes only warn and keep no stall inspector (their chunks would
   * repeat its reports).
   */
  public CpuGroupOptions quiet() {
    return new CpuGroupOptions(
        transport, Optional.empty(), DebugLog.Level.WARN, 0, flightRecorderEntries);
  }
}
