package dev.ddp4j.launcher.doctor;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/** Runs every check against one machine description, in the order the report shows them. */
final class Doctor {

  private Doctor() {}

  static List<Finding> examine(Machine m, DoctorJob job, LongSupplier clockMs) {
    List<Finding> out = new ArrayList<>();
    GpuInventory inv;
    try {
      inv = GpuInventory.of(m);
    } catch (RuntimeException e) {
      out.add(
          Finding.fail(GpuCheck.NAME, "finding the GPUs failed: " + e, "check nvidia-smi runs"));
      inv = new GpuInventory(List.of(), "", null, "", "discovery failed");
    }
    GpuInventory gpus = inv;
    int ranks = job.ranksHere(gpus.gpus().size());
    guarded(out, GpuCheck.NAME, () -> GpuCheck.check(gpus, m));
    Path tmpDir = Path.of(System.getProperty("java.io.tmpdir"));
    guarded(
        out, Nd4jCheck.NAME, () -> Nd4jCheck.check(gpus, job.programClasspath(), m.env(), tmpDir));
    guarded(out, PeerAccessCheck.NAME, () -> PeerAccessCheck.check(gpus, ranks, m.env()));
    guarded(out, SharedMemoryCheck.NAME, () -> SharedMemoryCheck.check(m, gpus, job));
    guarded(out, NumaCheck.NAME, () -> NumaCheck.check(m, gpus));
    guarded(out, NetworkCheck.NAME, () -> NetworkCheck.check(m, job));
    guarded(out, StoreCheck.PORT, () -> StoreCheck.check(m, job));
    guarded(out, LimitsCheck.MEMLOCK, () -> LimitsCheck.check(m, gpus, job));
    boolean canJoin =
        out.stream()
            .noneMatch(
                f -> f.check().equals(StoreCheck.SECRET) && f.status() == Finding.Status.FAIL);
    if (job.isMultiNode() && canJoin) {
      out.addAll(JobJoin.run(m, job, List.copyOf(out), clockMs));
    }
    return out;
  }

  /** A check that throws is a FAIL line of its own, and the other checks still run. */
  private static void guarded(List<Finding> out, String name, Supplier<List<Finding>> check) {
    try {
      out.addAll(check.get());
    } catch (RuntimeException e) {
      out.add(
          Finding.fail(
              name,
              "the check itself failed: " + e.getClass().getSimpleName() + ": " + e.getMessage(),
              "report this as a ddp4j bug, with this line"));
    }
  }
}
