package dev.ddp4j.testing;

import dev.ddp4j.InitMethod;
import dev.ddp4j.ProcessGroup;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.cpu.TestGroups;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The main class of a rank process spawned by a multi-process test: {@code RankProcessMain
 * <storeDir> <rank> <size> <scenario> [args...]}; joins the cpu group through a {@link
 * DirectoryStore} and runs {@code scenario} (a class implementing {@link RankScenario}). Exit
 * status 0 means every check passed; failures print their stack trace and exit 1.
 */
public final class RankProcessMain {

  private RankProcessMain() {}

  public static void main(String[] args) throws Exception {
    Path storeDir = Path.of(args[0]);
    int rank = Integer.parseInt(args[1]);
    int size = Integer.parseInt(args[2]);
    RankScenario scenario =
        (RankScenario) Class.forName(args[3]).getDeclaredConstructor().newInstance();
    String[] rest = java.util.Arrays.copyOfRange(args, 4, args.length);
    WorkerEnvironment w =
        new WorkerEnvironment(rank, size, rank, size, 0, 0, InitMethod.tcp("127.0.0.1", 1));
    int status = 0;
    try (ProcessGroup pg =
        TestGroups.create(w, new DirectoryStore(storeDir), scenario.timeout(), System.getenv())) {
      scenario.run(pg, rest);
    } catch (Throwable t) {
      t.printStackTrace();
      status = 1;
    }
    System.out.flush();
    System.err.flush();
    Runtime.getRuntime().halt(status);
  }

  /** What a rank process does once its group is up. */
  public interface RankScenario {
    void run(ProcessGroup pg, String[] args) throws Exception;

    default Duration timeout() {
      return Duration.ofSeconds(60);
    }
  }
}
