package dev.ddp4j.launcher.workers;

/** Test worker: prints its local rank and the CUDA_VISIBLE_DEVICES it was given, exits 0. */
public final class EnvWorker {
  private EnvWorker() {}

  public static void main(String[] args) {
    System.out.println(
        "local="
            + System.getenv("LOCAL_RANK")
            + " CUDA_VISIBLE_DEVICES="
            + System.getenv("CUDA_VISIBLE_DEVICES"));
  }
}
