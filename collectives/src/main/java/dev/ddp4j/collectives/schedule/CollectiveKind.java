package dev.ddp4j.collectives.schedule;

/**
 * The collectives a {@link Schedule} implements, and what its working buffer holds before and
 * after.
 *
 * <p>With {@code n} ranks and {@code m} elements per rank block:
 *
 * <pre>
 * kind            working buffer          before                          after
 * ALL_REDUCE      count elements          this rank's input               the reduction of every rank's input
 * BROADCAST       count elements          root: the data; others: any     every rank: root's data
 * ALL_GATHER      n*m elements (blocks)   block r: rank r's input         block j: rank j's input, every j
 * REDUCE_SCATTER  n*m elements (blocks)   this rank's whole input         block r: the reduction of block r
 * </pre>
 *
 * Executors copy an out-of-place input into the working buffer before the schedule runs, and (for
 * REDUCE_SCATTER) block {@code r} out of it afterwards.
 */
public enum CollectiveKind {
  ALL_REDUCE,
  BROADCAST,
  ALL_GATHER,
  REDUCE_SCATTER
}
