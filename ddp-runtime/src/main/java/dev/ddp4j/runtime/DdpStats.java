package dev.ddp4j.runtime;

/**
 * A snapshot of one rank's gradient synchronisation since {@link DdpModel} wrapped the model
 * ({@link DdpModel#stats()}).
 *
 * @param steps synchronised steps (one per step, or per truncated BPTT segment)
 * @param buckets how many buckets each step's gradient travels in
 * @param parameters elements of the flat gradient each step all-reduces
 * @param commNanos time the buckets spent in flight, launch to completion, summed over buckets and
 *     steps (host-timed buckets only: 0 when gradients stay on the GPU)
 * @param exposedNanos time the training thread waited for buckets after backward, summed over
 *     steps: the communication backward did not hide
 * @param countWaits times the training thread blocked on a step's counts: once per epoch of {@code
 *     fit(iterator)}, plus every later count not yet complete when it was needed (0 in steady
 *     state: each count is started before its step's compute)
 * @param replayedSteps steps this rank replayed under join after it ran out of data
 */
public record DdpStats(
    long steps,
    int buckets,
    long parameters,
    long commNanos,
    long exposedNanos,
    long countWaits,
    long replayedSteps) {

  /** Mean wait after backward per step, in milliseconds (0 before the first step). */
  public double exposedMsPerStep() {
    return steps == 0 ? 0 : exposedNanos / 1e6 / steps;
  }

  /** Mean in-flight bucket time per step, in milliseconds (0 before the first step). */
  public double commMsPerStep() {
    return steps == 0 ? 0 : commNanos / 1e6 / steps;
  }
}
