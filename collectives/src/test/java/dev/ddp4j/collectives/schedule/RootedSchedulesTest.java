package dev.ddp4j.collectives.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Runs every rank's {@link RootedSchedules} program together over unbounded in-order queues (one
 * per channel and direction) and checks the working buffers afterwards, for group sizes 1-7, every
 * root, several channel counts and counts that do not divide evenly.
 */
class RootedSchedulesTest {

  /** Runs the programs to the end (steps in order per channel); fails on a stuck or bad step. */
  private static void run(List<RankSchedule> programs, double[][] work) {
    int n = programs.size();
    int channels = programs.get(0).channels().size();
    @SuppressWarnings("unchecked")
    ArrayDeque<double[]>[][][] queues = new ArrayDeque[channels][n][n]; // [c][from][to]
    int[][] cursor = new int[n][channels];
    boolean moved = true;
    while (moved) {
      moved = false;
      for (int r = 0; r < n; r++) {
        for (int c = 0; c < channels; c++) {
          List<Step> steps = programs.get(r).channels().get(c);
          while (cursor[r][c] < steps.size()) {
            Step s = steps.get(cursor[r][c]);
            int from = s.kind() == StepKind.SEND ? r : s.peer();
            int to = s.kind() == StepKind.SEND ? s.peer() : r;
            if (queues[c][from][to] == null) {
              queues[c][from][to] = new ArrayDeque<>();
            }
            ArrayDeque<double[]> q = queues[c][from][to];
            int at = (int) s.offset();
            if (s.kind() == StepKind.SEND) {
              double[] piece = new double[(int) s.count()];
              System.arraycopy(work[r], at, piece, 0, piece.length);
              q.add(piece);
            } else if (q.isEmpty()) {
              break;
            } else {
              double[] piece = q.poll();
              assertThat(piece.length)
                  .as("rank %d step %s: message length", r, s)
                  .isEqualTo(s.count());
              for (int i = 0; i < piece.length; i++) {
                work[r][at + i] =
                    s.kind() == StepKind.RECV_COPY ? piece[i] : work[r][at + i] + piece[i];
              }
            }
            cursor[r][c]++;
            moved = true;
          }
        }
      }
    }
    for (int r = 0; r < n; r++) {
      for (int c = 0; c < channels; c++) {
        assertThat(cursor[r][c])
            .as("rank %d channel %d finished", r, c)
            .isEqualTo(programs.get(r).channels().get(c).size());
      }
    }
    for (ArrayDeque<double[]>[][] byChannel : queues) {
      for (ArrayDeque<double[]>[] from : byChannel) {
        for (ArrayDeque<double[]> q : from) {
          assertThat(q == null || q.isEmpty()).as("every message received").isTrue();
        }
      }
    }
  }

  private static int[][] rings(int n, int channels) {
    int[][] rings = new int[channels][n];
    for (int c = 0; c < channels; c++) {
      for (int p = 0; p < n; p++) {
        rings[c][p] = c % 2 == 0 ? (p + c) % n : (n - p) % n; // forward and backward rings
      }
    }
    return rings;
  }

  private static double value(int rank, long i) {
    return rank * 1000 + i;
  }

  @Test
  void shouldReduceToEveryRootAndLeaveTheOthersDataAlone() {
    for (int n = 1; n <= 7; n++) {
      for (int channels = 1; channels <= 3; channels++) {
        for (int count : new int[] {1, 5, 17}) {
          for (int root = 0; root < n; root++) {
            List<RankSchedule> programs = new ArrayList<>();
            double[][] work = new double[n][count + 1];
            for (int r = 0; r < n; r++) {
              programs.add(RootedSchedules.reduce(rings(n, channels), r, root, count, 4));
              for (int i = 0; i < count; i++) {
                work[r][i] = value(r, i);
              }
            }
            run(programs, work);
            for (int i = 0; i < count; i++) {
              double sum = 0;
              for (int r = 0; r < n; r++) {
                sum += value(r, i);
              }
              assertThat(work[root][i]).as("n=%d root=%d element %d", n, root, i).isEqualTo(sum);
            }
          }
        }
      }
    }
  }

  @Test
  void shouldGatherScatterAndAllToAllEveryBlock() {
    for (int n = 1; n <= 7; n++) {
      for (int channels = 1; channels <= 3; channels++) {
        for (int m : new int[] {1, 2, 7}) {
          for (int root = 0; root < n; root++) {
            List<RankSchedule> gather = new ArrayList<>();
            List<RankSchedule> scatter = new ArrayList<>();
            double[][] g = new double[n][];
            double[][] s = new double[n][];
            for (int r = 0; r < n; r++) {
              gather.add(RootedSchedules.gather(channels, n, r, root, m));
              scatter.add(RootedSchedules.scatter(channels, n, r, root, m));
              g[r] = new double[r == root ? n * m : m];
              s[r] = new double[r == root ? n * m : m];
              for (int i = 0; i < m; i++) {
                g[r][r == root ? r * m + i : i] = value(r, i);
              }
              for (int i = 0; r == root && i < n * m; i++) {
                s[r][i] = value(r, i);
              }
            }
            run(gather, g);
            run(scatter, s);
            for (int q = 0; q < n; q++) {
              for (int i = 0; i < m; i++) {
                assertThat(g[root][q * m + i]).isEqualTo(value(q, i));
                if (q != root) {
                  assertThat(g[q][i]).as("a sender's input is unchanged").isEqualTo(value(q, i));
                  assertThat(s[q][i]).isEqualTo(value(root, q * m + i));
                }
              }
            }
          }
          List<RankSchedule> a2a = new ArrayList<>();
          double[][] w = new double[n][2 * n * m];
          for (int r = 0; r < n; r++) {
            a2a.add(RootedSchedules.allToAll(channels, n, r, m));
            for (int i = 0; i < n * m; i++) {
              w[r][i] = value(r, i);
            }
          }
          run(a2a, w);
          for (int r = 0; r < n; r++) {
            for (int k = 0; k < n; k++) {
              for (int i = 0; i < m && k != r; i++) {
                assertThat(w[r][n * m + k * m + i]).isEqualTo(value(k, r * m + i));
              }
            }
          }
        }
      }
    }
  }
}
