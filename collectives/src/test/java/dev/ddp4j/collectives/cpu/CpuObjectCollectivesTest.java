package dev.ddp4j.collectives.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ddp4j.DdpException;
import dev.ddp4j.ObjectCodec;
import dev.ddp4j.ObjectCollectives;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.testing.ThreadRanks;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ObjectCollectives} on thread ranks of the cpu group: values of different sizes per rank,
 * Java serialisation and a caller's codec, and values that cannot be encoded.
 */
class CpuObjectCollectivesTest {

  record Config(String name, int epochs, List<Double> rates) implements Serializable {}

  private static final ObjectCodec<String> UTF8 =
      new ObjectCodec<>() {
        @Override
        public byte[] encode(String value) {
          return value.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] bytes) {
          return new String(bytes, StandardCharsets.UTF_8);
        }
      };

  private static ThreadRanks.Opener over(String transport) {
    Map<String, String> env =
        transport.equals("sockets") ? Map.of("DDP4J_SHM_DISABLE", "1") : Map.of();
    return (w, store, timeout) -> TestGroups.create(w, store, timeout, env);
  }

  private static String word(int rank) {
    return "rank-" + rank + "-" + "x".repeat(rank * 10_000); // sizes differ, some over a piece
  }

  @ParameterizedTest(name = "over {0}")
  @ValueSource(strings = {"shm", "sockets"})
  void shouldMoveValuesOfDifferentSizesWithEveryObjectCollective(String transport)
      throws Exception {
    int n = 3;
    ThreadRanks.runAll(
        n,
        Duration.ofSeconds(30),
        over(transport),
        pg -> {
          int r = pg.rank();
          Config sent = r == 1 ? new Config("resnet", 90, List.of(0.1, 0.01)) : null;
          assertThat(ObjectCollectives.broadcastObject(pg, sent, 1))
              .isEqualTo(new Config("resnet", 90, List.of(0.1, 0.01)));
          List<String> all = ObjectCollectives.allGatherObject(pg, word(r));
          assertThat(all).containsExactly(word(0), word(1), word(2));
          Optional<List<Integer>> gathered = ObjectCollectives.gatherObject(pg, r * r, 2);
          if (r == 2) {
            assertThat(gathered).contains(List.of(0, 1, 4));
          } else {
            assertThat(gathered).isEmpty();
          }
          List<String> parts = r == 0 ? List.of(word(2), "", word(1)) : null;
          assertThat(ObjectCollectives.scatterObject(pg, parts, 0, UTF8))
              .isEqualTo(List.of(word(2), "", word(1)).get(r));
          assertThat(ObjectCollectives.allGatherObject(pg, r == 1 ? null : "v" + r))
              .containsExactly("v0", null, "v2");
          return null;
        });
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"allGatherObject", "broadcastObject", "scatterObject"})
  void shouldFailEveryRankWhenAValueIsNotSerialisableNamingItsClass(String op) throws Exception {
    List<Object> out =
        ThreadRanks.run(
            3,
            Duration.ofSeconds(20),
            over("shm"),
            (ProcessGroup pg) -> {
              Object bad = new Object();
              try {
                switch (op) {
                  case "allGatherObject":
                    ObjectCollectives.allGatherObject(pg, pg.rank() == 1 ? bad : "fine");
                    break;
                  case "broadcastObject":
                    ObjectCollectives.broadcastObject(pg, bad, 1);
                    break;
                  default:
                    List<Object> values = new ArrayList<>(List.of("a", bad, "c"));
                    ObjectCollectives.scatterObject(pg, values, 1);
                }
                return "no error";
              } catch (IllegalArgumentException | DdpException e) {
                // The group is still in step: one more collective works on every rank.
                assertThat(ObjectCollectives.allGatherObject(pg, pg.rank())).hasSize(3);
                return e.getClass().getSimpleName() + ": " + e.getMessage();
              }
            });
    assertThat(String.valueOf(out.get(1)))
        .startsWith("IllegalArgumentException: " + op + " on rank 1: a value of class")
        .contains("java.lang.Object is not java.io.Serializable")
        .contains("pass an ObjectCodec");
    for (int r : new int[] {0, 2}) {
      assertThat(String.valueOf(out.get(r)))
          .startsWith("DdpException: " + op + " on rank " + r + ": ")
          .containsAnyOf("ranks [1] could not encode", "root 1 could not encode");
    }
  }
}
