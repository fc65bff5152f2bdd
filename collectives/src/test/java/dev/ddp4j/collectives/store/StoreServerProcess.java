package dev.ddp4j.collectives.store;

/**
 * A store server in a process of its own, for tests that need the server's own limits (file
 * descriptors) to bite: prints {@code port=N} once serving, serves until stdin closes.
 *
 * <p>Arguments: the secret, then optionally the cap on unauthenticated connections.
 */
public final class StoreServerProcess {

  private StoreServerProcess() {}

  public static void main(String[] args) throws Exception {
    String secret = args[0];
    StoreServer server =
        args.length > 1
            ? StoreServer.start(
                "127.0.0.1",
                0,
                secret,
                StoreServer.Limits.DEFAULT.withMaxUnauthenticated(Integer.parseInt(args[1])))
            : StoreServer.start("127.0.0.1", 0, secret);
    System.out.println("port=" + server.port());
    System.out.flush();
    while (System.in.read() >= 0) {
      // serve until the test closes our stdin
    }
    server.close();
  }
}
