package dev.ddp4j.collectives.cpu;

import dev.ddp4j.collectives.schedule.RankSchedule;
import dev.ddp4j.collectives.schedule.Step;
import dev.ddp4j.collectives.schedule.StepKind;
import java.util.List;

/**
 * One rank's {@link RankSchedule} flattened into arrays of byte ranges, the form {@link
 * ProgramRunner} walks without allocating. Built once per (collective, count, dtype size) and
 * cached.
 */
final class CompiledProgram {

  static final byte SEND = 0;
  static final byte RECV_COPY = 1;
  static final byte RECV_REDUCE = 2;

  final byte[][] kind; // [channel][step]
  final int[][] peer;
  final long[][] offsetBytes;
  final long[][] lengthBytes;
  final int maxSteps;

  CompiledProgram(RankSchedule schedule, int elementBytes) {
    List<List<Step>> channels = schedule.channels();
    int n = channels.size();
    kind = new byte[n][];
    peer = new int[n][];
    offsetBytes = new long[n][];
    lengthBytes = new long[n][];
    int most = 0;
    for (int c = 0; c < n; c++) {
      List<Step> steps = channels.get(c);
      int s = steps.size();
      most = Math.max(most, s);
      kind[c] = new byte[s];
      peer[c] = new int[s];
      offsetBytes[c] = new long[s];
      lengthBytes[c] = new long[s];
      for (int i = 0; i < s; i++) {
        Step step = steps.get(i);
        kind[c][i] = code(step.kind());
        peer[c][i] = step.peer();
        offsetBytes[c][i] = step.offset() * elementBytes;
        lengthBytes[c][i] = step.count() * elementBytes;
      }
    }
    maxSteps = most;
  }

  private static byte code(StepKind k) {
    switch (k) {
      case SEND:
        return SEND;
      case RECV_COPY:
        return RECV_COPY;
      default:
        return RECV_REDUCE;
    }
  }

  int channels() {
    return kind.length;
  }
}
