package dev.ddp4j.collectives.schedule;

import java.util.List;

/**
 * Everything one rank does in one collective: a list of {@link Step}s per channel. Channels are
 * independent (separate message queues between every pair of ranks) and may run in parallel; the
 * steps of one channel run in order.
 *
 * @param rank the rank this program belongs to
 * @param channels per channel, the steps in order (possibly empty)
 */
public record RankSchedule(int rank, List<List<Step>> channels) {

  public RankSchedule {
    channels = channels.stream().map(List::copyOf).toList();
  }

  /** The number of steps over all channels. */
  public int stepCount() {
    return channels.stream().mapToInt(List::size).sum();
  }
}
