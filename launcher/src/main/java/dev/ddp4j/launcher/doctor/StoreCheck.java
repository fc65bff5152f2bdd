package dev.ddp4j.launcher.doctor;

import java.util.ArrayList;
import java.util.List;

/**
 * The store before any node joins it: whether the port is free here (a single-node job's launcher
 * hosts it on this host), and whether the job secret that a multi-node job needs is set.
 */
final class StoreCheck {

  static final String PORT = "store-port";
  static final String SECRET = "secret";

  private StoreCheck() {}

  static List<Finding> check(Machine m, DoctorJob job) {
    List<Finding> out = new ArrayList<>();
    String addr = job.masterAddr() + ":" + job.masterPort();
    if (!job.isMultiNode()) {
      if (job.masterPort() == 0) {
        out.add(Finding.ok(PORT, "--master-port=0: the launcher picks a free port"));
      } else {
        out.add(
            m.bindProblem(job.masterAddr(), job.masterPort())
                .map(
                    why ->
                        Finding.fail(
                            PORT,
                            "the launcher cannot host the store at " + addr + ": " + why,
                            "--master-port=<a free port> (or 0, or --standalone), or stop what holds it:"
                                + " ss -ltnp 'sport = :"
                                + job.masterPort()
                                + "'"))
                .orElse(Finding.ok(PORT, addr + " is free for the launcher's store")));
      }
    }
    if (job.secretSource().startsWith("invalid:")) {
      out.add(
          Finding.fail(
              SECRET,
              job.secretSource().substring("invalid:".length()).trim(),
              "see docs/security.md"));
    } else if (job.secret().isEmpty()) {
      out.add(
          job.isMultiNode()
              ? Finding.fail(
                  SECRET,
                  "a "
                      + job.nnodes()
                      + "-node job needs one secret on every launcher, and none is set",
                  "--store-secret-file=PATH (the same file content on every node), or DDP4J_STORE_SECRET"
                      + " / DDP4J_STORE_SECRET_FILE")
              : Finding.ok(SECRET, "single node: the launcher makes a random secret per job"));
    } else {
      out.add(Finding.ok(SECRET, "set from " + job.secretSource()));
    }
    return out;
  }
}
