package dev.ddp4j.collectives.sim;

/**
 * What the simulator predicts for one schedule.
 *
 * @param timeUs when the last rank finishes its last step, µs
 * @param messages messages sent
 * @param busiestLink id of the link that was busy longest (-1 if nothing moved)
 * @param busiestLinkUs how long that link was busy in its busier direction, µs
 */
public record SimResult(double timeUs, long messages, int busiestLink, double busiestLinkUs) {}
