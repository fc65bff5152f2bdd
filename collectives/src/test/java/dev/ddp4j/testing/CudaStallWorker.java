package dev.ddp4j.testing;

import dev.ddp4j.DataType;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.collectives.cuda.CudaProcessGroup;
import dev.ddp4j.collectives.cuda.harness.LocalRanks;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.store.FileStore;
import java.time.Duration;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;

/**
 * A rank of CudaStallGpuTest (started by LocalRanks, outside ddp4j's collectives packages so its
 * frames are the call sites a report shows): three all-reduces of 1024 floats on its GPU; the last
 * rank sleeps 5 s before the third.
 */
public final class CudaStallWorker {
  private CudaStallWorker() {}

  public static void main(String[] args) throws Exception {
    Duration timeout = Duration.ofSeconds(60);
    try (FileStore store = LocalRanks.store(timeout)) {
      CudaProcessGroup pg =
          CudaProcessGroup.create(
              LocalRanks.worker(), store, timeout, dev.ddp4j.spi.Settings.process());
      CUdeviceptr p = new CUdeviceptr();
      JCudaDriver.cuMemAlloc(p, 4096);
      DeviceBuffer d = new DeviceBuffer(Cu.address(p), pg.deviceIndex(), 0, 1024, DataType.FLOAT32);
      for (int i = 0; i < 3; i++) {
        if (i == 2 && pg.rank() == pg.size() - 1) {
          System.out.println("rank " + pg.rank() + " sleeps before #2");
          Thread.sleep(5_000);
        }
        pg.allReduce(d, ReduceOp.SUM).await();
      }
      Thread.sleep(1_000); // the inspector's next heartbeat sees the stall over
      JCudaDriver.cuMemFree(p);
      pg.close();
    }
  }
}
