package dev.ddp4j.bench.ddp;

import dev.ddp4j.collectives.gpu.Cu;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import jcuda.driver.CUdevice;
import jcuda.driver.JCudaDriver;

/**
 * A worker for checking, on a GPU machine, what the launcher gave each rank: run as {@code
 * launcher.jar --nproc-per-node=gpu --classpath ... dev.ddp4j.bench.ddp.PlacementReport}. Each rank
 * prints its LOCAL_RANK, the PCI bus id and NUMA node of the GPU the cuda backend would open for it
 * (device ordinal LOCAL_RANK), and the CPUs and memory nodes the kernel lets it use, so a wrong GPU
 * or a missing NUMA binding shows in one line per rank.
 */
public final class PlacementReport {

  private PlacementReport() {}

  public static void main(String[] args) throws IOException {
    int localRank = Integer.parseInt(System.getenv().getOrDefault("LOCAL_RANK", "0"));
    JCudaDriver.setExceptionsEnabled(false);
    Cu.check(JCudaDriver.cuInit(0), "cuInit");
    int[] count = new int[1];
    Cu.check(JCudaDriver.cuDeviceGetCount(count), "cuDeviceGetCount");
    CUdevice dev = new CUdevice();
    Cu.check(JCudaDriver.cuDeviceGet(dev, localRank), "cuDeviceGet");
    String[] bus = new String[1];
    Cu.check(JCudaDriver.cuDeviceGetPCIBusId(bus, 32, dev), "cuDeviceGetPCIBusId");
    String busId = bus[0].trim().toLowerCase(Locale.ROOT);
    Path numa = Path.of("/sys/bus/pci/devices", busId, "numa_node");
    String node = Files.exists(numa) ? Files.readString(numa).trim() : "unknown";
    String cpus = "?";
    String mems = "?";
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("Cpus_allowed_list:")) {
        cpus = line.substring(18).trim();
      } else if (line.startsWith("Mems_allowed_list:")) {
        mems = line.substring(18).trim();
      }
    }
    System.out.printf(
        Locale.ROOT,
        "PLACEMENT rank=%s local_rank=%d world=%s gpus_visible=%d gpu=%d bus=%s gpu_numa=%s"
            + " cpus=%s mems=%s%n",
        System.getenv("RANK"),
        localRank,
        System.getenv("WORLD_SIZE"),
        count[0],
        localRank,
        busId,
        node,
        cpus,
        mems);
  }
}
