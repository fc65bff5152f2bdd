package dev.ddp4j.collectives.store;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The last replies to non-idempotent requests (add, append) per client id, so a request a client
 * re-sends after losing its connection is answered, not applied twice. Bounded per client.
 */
final class ReplyCache {

  private static final int PER_CLIENT = 256;

  private final Map<Long, LinkedHashMap<Integer, byte[]>> byClient = new HashMap<>();

  synchronized byte[] get(long clientId, int requestId) {
    Map<Integer, byte[]> m = byClient.get(clientId);
    return m == null ? null : m.get(requestId);
  }

  synchronized void put(long clientId, int requestId, byte[] reply) {
    byClient
        .computeIfAbsent(
            clientId,
            c ->
                new LinkedHashMap<>() {
                  private static final long serialVersionUID = 1L;

                  @Override
                  protected boolean removeEldestEntry(Map.Entry<Integer, byte[]> e) {
                    return size() > PER_CLIENT;
                  }
                })
        .put(requestId, reply);
  }
}
