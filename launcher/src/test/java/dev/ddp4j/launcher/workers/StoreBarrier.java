package dev.ddp4j.launcher.workers;

/** Test program named like the store's barrier helper, to check main-class resolution. */
public final class StoreBarrier {
  private StoreBarrier() {}

  public static void main(String[] args) {
    System.out.println("launcher test StoreBarrier");
  }
}
