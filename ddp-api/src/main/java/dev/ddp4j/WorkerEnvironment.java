package dev.ddp4j;

import dev.ddp4j.spi.Settings;

/**
 * Who this process is in the job and where the job's store is, as the launcher (or torchrun-style
 * tooling, or the user) told it. Read once at init from the environment variables below, overridden
 * by {@link InitOptions}.
 *
 * <table>
 *   <caption>Variables read</caption>
 *   <tr><th>variable</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>RANK</td><td>global rank</td><td>required (unless given in InitOptions)</td></tr>
 *   <tr><td>WORLD_SIZE</td><td>number of ranks</td><td>required (unless given in InitOptions)</td></tr>
 *   <tr><td>LOCAL_RANK</td><td>rank on this node; picks the GPU</td><td>RANK</td></tr>
 *   <tr><td>LOCAL_WORLD_SIZE</td><td>ranks on this node</td><td>WORLD_SIZE</td></tr>
 *   <tr><td>GROUP_RANK</td><td>this node's rank</td><td>0</td></tr>
 *   <tr><td>MASTER_ADDR, MASTER_PORT</td><td>the TCP store, for env://</td><td>required for env://</td></tr>
 *   <tr><td>DDP4J_RESTART_COUNT</td><td>how often the launcher restarted the group</td><td>0</td></tr>
 * </table>
 *
 * @param rank global rank
 * @param worldSize number of ranks
 * @param localRank rank among the processes on this node
 * @param localWorldSize number of processes on this node
 * @param groupRank the node's rank in the job
 * @param restartCount how many times the launcher restarted the group before this run
 * @param initMethod where the store is; an {@code env://} method is resolved to {@code tcp://}
 *     ({@link InitMethod#userStore()} when the program passed its own store)
 */
public record WorkerEnvironment(
    int rank,
    int worldSize,
    int localRank,
    int localWorldSize,
    int groupRank,
    int restartCount,
    InitMethod initMethod) {

  public static final String RANK = "RANK";
  public static final String WORLD_SIZE = "WORLD_SIZE";
  public static final String LOCAL_RANK = "LOCAL_RANK";
  public static final String LOCAL_WORLD_SIZE = "LOCAL_WORLD_SIZE";
  public static final String GROUP_RANK = "GROUP_RANK";
  public static final String MASTER_ADDR = "MASTER_ADDR";
  public static final String MASTER_PORT = "MASTER_PORT";
  public static final String RESTART_COUNT = "DDP4J_RESTART_COUNT";

  public WorkerEnvironment {
    checkRanks(rank, worldSize, localRank, localWorldSize);
    if (initMethod == null || initMethod.scheme() == InitMethod.Scheme.ENV) {
      throw new ConfigException(
          "the init method must be resolved to tcp://, file:// or the program's store before use, got "
              + initMethod);
    }
  }

  private static void checkRanks(int rank, int worldSize, int localRank, int localWorldSize) {
    if (worldSize < 1) {
      throw new ConfigException("WORLD_SIZE=" + worldSize + " (expected: >= 1)");
    }
    if (rank < 0 || rank >= worldSize) {
      throw new ConfigException(
          "RANK="
              + rank
              + " is outside the job (expected: 0 <= RANK < WORLD_SIZE="
              + worldSize
              + ")");
    }
    if (localWorldSize < 1 || localWorldSize > worldSize) {
      throw new ConfigException(
          "LOCAL_WORLD_SIZE="
              + localWorldSize
              + " (expected: 1 <= LOCAL_WORLD_SIZE <= WORLD_SIZE="
              + worldSize
              + ")");
    }
    if (localRank < 0 || localRank >= localWorldSize) {
      throw new ConfigException(
          "LOCAL_RANK="
              + localRank
              + " (expected: 0 <= LOCAL_RANK < LOCAL_WORLD_SIZE="
              + localWorldSize
              + ")");
    }
  }

  /**
   * Resolves this process's place in the job from {@code options} (where set) and {@code env}.
   *
   * @throws ConfigException naming the variable, its value and the fix when one is missing or
   *     malformed
   */
  public static WorkerEnvironment resolve(InitOptions options, Settings env) {
    InitMethod method = options.initMethod();
    int rank = options.rank().orElseGet(() -> requiredInt(env, RANK));
    int worldSize = options.worldSize().orElseGet(() -> requiredInt(env, WORLD_SIZE));
    int localRank = optionalInt(env, LOCAL_RANK, rank);
    int localWorldSize = optionalInt(env, LOCAL_WORLD_SIZE, worldSize);
    int groupRank = optionalInt(env, GROUP_RANK, 0);
    int restarts = optionalInt(env, RESTART_COUNT, 0);
    checkRanks(rank, worldSize, localRank, localWorldSize);
    if (method.scheme() == InitMethod.Scheme.ENV) {
      String addr = env.text(MASTER_ADDR, "");
      if (addr.isEmpty()) {
        throw new ConfigException(
            "init method env:// needs MASTER_ADDR, which is not set (start workers with `java -jar launcher.jar`,"
                + " or set MASTER_ADDR and MASTER_PORT, or pass --init-method tcp://HOST:PORT)");
      }
      int port = requiredInt(env, MASTER_PORT);
      if (port < 1 || port > 65535) {
        throw new ConfigException(
            "MASTER_PORT=" + port + " is out of range (expected: 1 to 65535)");
      }
      method = InitMethod.tcp(addr.trim(), port);
    }
    return new WorkerEnvironment(
        rank, worldSize, localRank, localWorldSize, groupRank, restarts, method);
  }

  static int requiredInt(Settings env, String name) {
    if (!env.isSet(name)) {
      throw new ConfigException(
          name
              + " is not set (start workers with `java -jar launcher.jar --nproc-per-node=N ...`, which sets"
              + " RANK, WORLD_SIZE, LOCAL_RANK and MASTER_ADDR/PORT, or set it yourself)");
    }
    return optionalInt(env, name, 0);
  }

  // The upper bounds are checked by checkRanks, which names the job's sizes.
  static int optionalInt(Settings env, String name, int fallback) {
    return env.whole(name, fallback, 0, Integer.MAX_VALUE);
  }
}
