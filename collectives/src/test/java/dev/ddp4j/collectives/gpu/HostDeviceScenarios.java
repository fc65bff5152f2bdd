package dev.ddp4j.collectives.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ddp4j.CollectiveMismatchException;
import dev.ddp4j.DataType;
import dev.ddp4j.DdpException;
import dev.ddp4j.DdpTimeoutException;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.HostBuffer;
import dev.ddp4j.InitMethod;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.cpu.CorrectnessScenario;
import dev.ddp4j.collectives.cpu.PointToPointScenario;
import dev.ddp4j.testing.RankProcessMain;
import dev.ddp4j.testing.StandInDeviceGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Rank scenarios of {@link HostDeviceGroupTest}: each builds the group {@code Ddp.init()} gives on
 * a GPU machine ({@link HostDeviceGroup#over}) around a {@link StandInDeviceGroup} and the real
 * store of the job, so the host half is a real cpu group across real processes.
 */
final class HostDeviceScenarios {

  private HostDeviceScenarios() {}

  static HostDeviceGroup over(ProcessGroup pg, StandInDeviceGroup device, Duration timeout) {
    WorkerEnvironment w = worker(pg);
    return HostDeviceGroup.over(device, w, pg.store(), timeout, dev.ddp4j.spi.Settings.empty());
  }

  static WorkerEnvironment worker(ProcessGroup pg) {
    return new WorkerEnvironment(
        pg.rank(), pg.size(), pg.rank(), pg.size(), 0, 0, InitMethod.tcp("127.0.0.1", 1));
  }

  /**
   * Every collective, dtype and op on host buffers through the host half ({@link
   * CorrectnessScenario}, args passed on), which starts at the first host call; device buffers go
   * to the device half, a mix is refused, close closes both halves.
   */
  public static final class Correctness implements RankProcessMain.RankScenario {
    @Override
    public void run(ProcessGroup pg, String[] args) {
      StandInDeviceGroup device = new StandInDeviceGroup(worker(pg), pg.store(), pg.timeout());
      HostDeviceGroup both = over(pg, device, pg.timeout());
      assertThat(both.backend()).isEqualTo("cuda");
      both.barrier().await(); // the device half's
      assertThat(both.hostHalfStarted()).as("host half before any host call").isFalse();
      new CorrectnessScenario().run(both, args);
      assertThat(both.hostHalfStarted()).isTrue();
      DeviceBuffer d = new DeviceBuffer(0x10000, pg.rank(), 0, 4, DataType.FLOAT32);
      assertThatThrownBy(() -> both.allReduce(d, ReduceOp.SUM))
          .hasMessageStartingWith(StandInDeviceGroup.REFUSAL + "allReduce");
      assertThatThrownBy(() -> both.broadcast(d, 0))
          .hasMessageStartingWith(StandInDeviceGroup.REFUSAL + "broadcast");
      assertThatThrownBy(() -> both.allReduce(HostBuffer.of(new float[4]), d, ReduceOp.SUM))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "allReduce: the input is host memory but the output is device memory (expected:"
                  + " both HostBuffers or both DeviceBuffers; copy one side first)");
      both.close();
      assertThat(device.closed()).as("device half closed").isTrue();
      assertThatThrownBy(() -> both.allReduce(HostBuffer.of(new float[1]), ReduceOp.SUM))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("closed");
      System.out.println("rank " + pg.rank() + " host and device halves checked");
    }

    @Override
    public Duration timeout() {
      return Duration.ofSeconds(120);
    }
  }

  /**
   * Point-to-point messages, rooted collectives, all-to-all and object collectives on host buffers
   * through the host half ({@link PointToPointScenario}).
   */
  public static final class PointToPoint implements RankProcessMain.RankScenario {
    @Override
    public void run(ProcessGroup pg, String[] args) {
      try (HostDeviceGroup both =
          over(pg, new StandInDeviceGroup(worker(pg), pg.store(), pg.timeout()), pg.timeout())) {
        new PointToPointScenario().run(both, args);
        assertThat(both.hostHalfStarted()).isTrue();
      }
    }
  }

  /** Rank 1 all-reduces 2048 floats where rank 0 gives 4096: both fail naming the two calls. */
  public static final class Mismatch implements RankProcessMain.RankScenario {
    @Override
    public void run(ProcessGroup pg, String[] args) {
      try (HostDeviceGroup both =
          over(pg, new StandInDeviceGroup(worker(pg), pg.store(), pg.timeout()), pg.timeout())) {
        boolean odd = pg.rank() == 1;
        both.allReduce(HostBuffer.of(new float[8]), ReduceOp.SUM).await();
        var work = both.allReduce(HostBuffer.of(new float[odd ? 2048 : 4096]), ReduceOp.SUM);
        assertThatThrownBy(work::await)
            .isInstanceOf(CollectiveMismatchException.class)
            .hasMessageContaining("allReduce #1")
            .hasMessageContaining("on rank " + pg.rank())
            .hasMessageContaining("but rank " + (1 - pg.rank()) + " called")
            .hasMessageContaining(odd ? "2048 float32" : "4096 float32");
      } catch (DdpException e) {
        // close() of a broken group may report the failure again; the check above is what counts
      }
      System.out.println("rank " + pg.rank() + " saw the mismatch");
    }
  }

  /**
   * The last rank never makes host collective #1 (args[0] {@code collective}), or never makes any
   * host call, so the host half never starts there ({@code start}): the others fail after the
   * group's timeout naming it.
   */
  public static final class Missing implements RankProcessMain.RankScenario {
    @Override
    public void run(ProcessGroup pg, String[] args) {
      boolean atStart = args[0].equals("start");
      int last = pg.size() - 1;
      HostDeviceGroup both =
          over(
              pg,
              new StandInDeviceGroup(worker(pg), pg.store(), Duration.ofSeconds(60)),
              Duration.ofSeconds(3));
      if (!atStart) {
        both.allReduce(HostBuffer.of(new float[100]), ReduceOp.SUM).await();
      }
      if (pg.rank() == last) {
        List<String> checked = new ArrayList<>();
        for (int r = 0; r < last; r++) {
          checked.add("missing/checked/" + r);
        }
        pg.store().wait(checked, Duration.ofSeconds(60));
        System.out.println("rank " + pg.rank() + " stayed away");
        Runtime.getRuntime().halt(0); // its halves would wait for the others at close
      }
      long start = System.nanoTime();
      Throwable failure = null;
      try {
        both.allReduce(HostBuffer.of(new float[100]), ReduceOp.SUM).await(Duration.ofSeconds(30));
      } catch (RuntimeException e) {
        failure = e;
      }
      long seconds = (System.nanoTime() - start) / 1_000_000_000L;
      assertThat(failure).as("the missing rank must fail the call").isNotNull();
      String all = failure + " / " + failure.getCause();
      System.out.println("rank " + pg.rank() + " failure: " + all.replace('\n', ' '));
      if (atStart) {
        assertThat(failure)
            .isInstanceOf(DdpException.class)
            .hasMessageContaining("host half (a cpu group for host buffers) could not start")
            .hasMessageContaining("rank " + last + " never published")
            .hasMessageContaining("/node/'"); // the key prefix the missing rank never wrote under
      } else {
        assertThat(failure)
            .isInstanceOf(DdpTimeoutException.class)
            .hasMessageContaining("ranks that never arrived: [" + last + "]");
      }
      assertThat(seconds).as("seconds until the call failed").isBetween(2L, 20L);
      pg.store().set("missing/checked/" + pg.rank(), new byte[] {1});
      System.out.println("rank " + pg.rank() + " saw the missing rank");
    }
  }
}
