package dev.ddp4j.collectives.gpu;

import dev.ddp4j.Store;
import java.time.Duration;

/**
 * This process's place in a device group: rank {@code rank} of {@code size}, meeting the others
 * through {@code store}, every wait for them bounded by {@code timeout}.
 */
public record GroupRank(int rank, int size, Store store, Duration timeout) {}
