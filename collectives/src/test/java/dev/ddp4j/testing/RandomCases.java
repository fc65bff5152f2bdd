package dev.ddp4j.testing;

import java.util.Random;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Random test cases for JUnit's {@code @ParameterizedTest @MethodSource}: {@code tries} argument
 * lists, each drawn by {@code draw} from a {@link Random} seeded with {@code seed + i}. The cases
 * are the same on every run (a failure names its index and values, and reruns the same way), and
 * case 0 draws with the lower bound of every {@link Draw#between} so the smallest values are always
 * tried.
 */
public final class RandomCases {

  private RandomCases() {}

  /** A source of values for one case. */
  public static final class Draw {
    private final Random random;
    private final boolean lowest;

    Draw(long seed, boolean lowest) {
      this.random = new Random(seed);
      this.lowest = lowest;
    }

    /** A value in {@code [min, max]} (both inclusive); {@code min} in case 0. */
    public int between(int min, int max) {
      return lowest ? min : min + random.nextInt(max - min + 1);
    }

    /** A value in {@code [min, max]} (both inclusive); {@code min} in case 0. */
    public long between(long min, long max) {
      return lowest ? min : min + Math.floorMod(random.nextLong(), max - min + 1);
    }

    /** Any long, e.g. a seed for a generator under test. */
    public long anyLong() {
      return random.nextLong();
    }
  }

  /** {@code tries} cases drawn from seeds {@code seed}, {@code seed + 1}, ... */
  public static Stream<Arguments> of(long seed, int tries, Function<Draw, Object[]> draw) {
    return IntStream.range(0, tries)
        .mapToObj(i -> Arguments.of(draw.apply(new Draw(seed + i, i == 0))));
  }
}
