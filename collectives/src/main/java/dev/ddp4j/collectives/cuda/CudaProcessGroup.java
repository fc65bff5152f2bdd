package dev.ddp4j.collectives.cuda;

import dev.ddp4j.DataType;
import dev.ddp4j.DdpException;
import dev.ddp4j.DeviceBuffer;
import dev.ddp4j.ReduceOp;
import dev.ddp4j.Store;
import dev.ddp4j.TensorBuffer;
import dev.ddp4j.Work;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.gpu.Cu;
import dev.ddp4j.collectives.gpu.CudaWork;
import dev.ddp4j.collectives.gpu.DeviceBuffers;
import dev.ddp4j.collectives.gpu.DeviceGroup;
import dev.ddp4j.collectives.gpu.EventPool;
import dev.ddp4j.collectives.log.DebugLog;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.plan.PlanAgreement;
import dev.ddp4j.collectives.plan.PlannerOptions;
import dev.ddp4j.collectives.stall.StallInspector;
import dev.ddp4j.spi.CollectiveChecks;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * The {@code cuda} process group: one process per GPU, ddp4j's own kernels moving data GPU to GPU
 * over CUDA IPC peer memory ({@link PeerScratch}), synchronised by flags inside the kernels.
 *
 * <p>Collectives take {@link DeviceBuffer}s on this group's GPU and run on the buffer's stream:
 * after the work already queued there and before work queued after; the returned {@link Work}
 * completes through a CUDA event. Collectives are also ordered among themselves: when a call uses
 * another stream than the previous one, it first waits for the previous one's event. Messages
 * larger than a scratch slot run as several launches. Every rank must call the same collectives
 * with the same count, dtype and op (not checked across ranks: that would cost a round trip).
 *
 * <p>The context is made current once per calling thread. The group checks each call's buffers and
 * orders the calls; how the data moves is the one {@link CudaRoute} chosen at creation from the
 * planner's plan and the pairs' peer access ({@link PeerRouting}: {@code DDP4J_P2P_DISABLE}, {@code
 * DDP4J_P2P_DISABLE_PAIRS}, the driver's answer, other hosts): every kernel over IPC, the ring
 * kernels around pairs without peer access (their hops through host memory where the ring cannot
 * avoid them), the hierarchical all-reduce of GPU islands at the sizes the plan gives it, or, with
 * a hop between hosts, the whole group host-staged ({@link StagedPath}), all with the same stream
 * and Work contract.
 */
public final class CudaProcessGroup implements DeviceGroup {

  private static final int DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;

  private final int rank;
  private final int size;
  private final Store store;
  private final Duration timeout;
  private final int deviceIndex;
  private final CUdevice device;
  private final CUcontext context;
  private final String prefix;

  /** How every collective moves its data, chosen once from the plan ({@link CudaRoutes}). */
  private final CudaRoute route;

  private final EventPool events = new EventPool();
  private final ArrayDeque<CudaWork> inflight = new ArrayDeque<>();
  private final CUstream internalStream = new CUstream();
  private Thread contextThread;
  private final CUdeviceptr barrierWord = new CUdeviceptr();
  private long collectiveSeq;
  private long lastStreamHandle = Long.MIN_VALUE;
  private CUstream lastStream;
  private CudaWork lastWork;
  private boolean closed;

  /** What the planner decided for this group, the same on every rank (hash-checked). */
  private final Plan plan;

  /** The plan's kernels and shapes by launch size. */
  private final PlanChooser planChooser;

  /** Names the ranks that hold a collective up, while the others wait ({@code stall}). */
  private final StallInspector stalls;

  private CudaProcessGroup(
      WorkerEnvironment worker,
      Store store,
      Duration timeout,
      AllReduceChooser chooser,
      long scratchBudgetBytes) {
    this.rank = worker.rank();
    this.size = worker.worldSize();
    this.store = store;
    this.timeout = timeout;
    PeerAccessSettings access = PeerAccessSettings.fromEnvironment(System.getenv());
    Cu.check(JCudaDriver.cuInit(0), "cuInit");
    int[] count = new int[1];
    Cu.check(JCudaDriver.cuDeviceGetCount(count), "cuDeviceGetCount");
    boolean shareGpus = CudaSettings.shareGpus();
    if (worker.localRank() >= count[0] && !shareGpus) {
      throw new DdpException(
          "rank "
              + rank
              + ": LOCAL_RANK="
              + worker.localRank()
              + " but this process sees "
              + count[0]
              + " GPU(s) (the cuda backend runs one process per GPU: start at most "
              + count[0]
              + " workers per node, or check CUDA_VISIBLE_DEVICES)");
    }
    // DDP4J_CUDA_SHARE_GPUS=1 (tests on machines with fewer GPUs than ranks): ranks share GPUs
    // round robin; the routing still sees one logical GPU per local rank, so that
    // DDP4J_P2P_DISABLE_PAIRS names local ranks and a ring around them runs on one GPU.
    this.deviceIndex = shareGpus ? worker.localRank() % count[0] : worker.localRank();
    int logicalGpu = worker.localRank();
    this.device = new CUdevice();
    Cu.check(JCudaDriver.cuDeviceGet(device, deviceIndex), "cuDeviceGet " + deviceIndex);
    this.context = new CUcontext();
    Cu.check(JCudaDriver.cuDevicePrimaryCtxRetain(context, device), "cuDevicePrimaryCtxRetain");
    Cu.check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
    int[] sms = new int[1];
    JCudaDriver.cuDeviceGetAttribute(sms, DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
    long groupNumber = store.add("ddp4j/cuda/groups/rank" + rank, 1);
    this.prefix = "ddp4j/cuda/" + worker.restartCount() + "/" + groupNumber;
    this.stalls =
        StallInspector.start(
            "cuda group " + groupNumber, store, prefix + "/", rank, size, System.getenv());
    Cu.check(
        JCudaDriver.cuStreamCreate(internalStream, CUstream_flags.CU_STREAM_NON_BLOCKING),
        "cuStreamCreate");
    Cu.check(JCudaDriver.cuMemAlloc(barrierWord, 16), "cuMemAlloc of the barrier word");
    AllReduceKernels kernels = size > 1 ? new AllReduceKernels() : null;
    PeerDirectory.Directory directory =
        PeerDirectory.exchange(
            rank,
            size,
            logicalGpu,
            device,
            store,
            prefix,
            timeout,
            access,
            access.describe() + " " + CudaSettings.describeStaging());
    PeerRouting routing = directory.routing();
    Map<String, String> env = System.getenv();
    int residentCap =
        kernels == null
            ? PlannerOptions.DEFAULT_MAX_CHANNELS_GPU
            : GpuPlanning.agreeResidentCap(
                store,
                prefix,
                rank,
                size,
                GpuPlanning.residentChannels(
                    residentBlocks(kernels, sms[0]), directory.ranksOnGpuOf(rank)),
                timeout);
    PlannerOptions options = GpuPlanning.options(env, residentCap);
    InterHostChoice.Setting interSetting = InterHostChoice.setting(env);
    InterHostChoice.Decision inter = null;
    if (!routing.oneHost()) {
      inter =
          InterHostChoice.agree(
              store,
              prefix,
              rank,
              size,
              interSetting,
              dev.ddp4j.collectives.nccl.NcclLibrary::unavailableReason,
              timeout);
      options = options.withInterHost(inter.via());
    }
    List<String> hostOfRank = new ArrayList<>();
    int ranksOnMyHost = 0;
    for (PeerRouting.RankPeer p : routing.peers()) {
      hostOfRank.add(p.host());
      ranksOnMyHost += p.host().equals(routing.peers().get(rank).host()) ? 1 : 0;
    }
    int localRanks = ranksOnMyHost;
    String myBus = directory.busIds()[rank];
    PlanAgreement.Agreed agreed =
        PlanAgreement.agree(
            store,
            prefix + "/",
            rank,
            hostOfRank,
            () -> GpuPlanning.hostTopology(env, localRanks, shareGpus),
            GpuPlanning.deviceName(myBus, logicalGpu, shareGpus),
            GpuPlanning::deviceOf,
            (job, devices) -> GpuPlanning.withAccess(job, devices, routing),
            GpuPlanning.request(options, routing.oneHost()),
            timeout);
    this.plan = agreed.plan();
    this.planChooser = new PlanChooser(plan);
    AllReduceChooser choose = chooser != null ? chooser : planChooser;
    this.route =
        CudaRoutes.open(
            new CudaRoutes.Group(
                worker,
                store,
                prefix,
                groupNumber,
                timeout,
                device,
                deviceIndex,
                context,
                events,
                stalls,
                this::finish),
            plan,
            agreed.topology(),
            routing,
            options,
            kernels,
            choose,
            scratchBudgetBytes);
    RouteLog.log(agreed.topology(), plan, rank, route.name(), residentCap, routing);
    if (inter != null) {
      RouteLog.logBetweenHosts(agreed.topology(), plan, rank, inter.why());
    }
    DebugLog log = new DebugLog(System.getenv(), rank);
    if (log.enabled(DebugLog.Level.INFO)) {
      log.log(
          DebugLog.Level.INFO,
          String.format(
              "cuda group rank %d/%d on GPU %d: %d MiB of extra device memory (scratch %s)",
              rank, size, deviceIndex, extraDeviceMemoryBytes() >> 20, route));
    }
  }

  /**
   * Joins a cuda group: every rank calls this with the same world size and store. Collective:
   * returns once every rank published its scratch, or fails after {@code timeout}.
   *
   * @param scratchBudgetBytes the most device memory the scratch may take
   */
  public static CudaProcessGroup create(
      WorkerEnvironment worker, Store store, Duration timeout, long scratchBudgetBytes) {
    return new CudaProcessGroup(worker, store, timeout, null, scratchBudgetBytes);
  }

  /**
   * As above, with the kernel per launch picked by {@code chooser} instead of the plan's {@link
   * PlanChooser} (null): for the GPU tests, which force each algorithm in turn.
   */
  static CudaProcessGroup create(
      WorkerEnvironment worker,
      Store store,
      Duration timeout,
      AllReduceChooser chooser,
      long scratchBudgetBytes) {
    return new CudaProcessGroup(worker, store, timeout, chooser, scratchBudgetBytes);
  }

  /** Device memory this group allocated on its GPU (scratch and the barrier word). */
  public long extraDeviceMemoryBytes() {
    return route.deviceBytes() + 16;
  }

  /** The most bytes one kernel launch reduces; larger messages run as several launches. */
  @Override
  public long maxLaunchBytes() {
    return route.maxLaunchBytes();
  }

  /**
   * How allReduce runs in this group: {@code direct} (every pair has a peer path), {@code ring
   * 0-2-1-3} (around pairs without one; the other collectives too), {@code staged}, or {@code
   * local} on one rank.
   */
  public String allReduceRoute() {
    return route.name();
  }

  /** The plan this group runs, the same on every rank. */
  public Plan plan() {
    return plan;
  }

  /** The plan's choice of kernel and shape per launch (what runs unless a chooser was given). */
  AllReduceChooser planChooser() {
    return planChooser;
  }

  /** Resident blocks of each kernel family on the whole GPU (its SMs). */
  private static Map<AllReduceAlgorithm, Long> residentBlocks(AllReduceKernels k, int sms) {
    Map<AllReduceAlgorithm, Long> out = new java.util.EnumMap<>(AllReduceAlgorithm.class);
    for (AllReduceAlgorithm a : AllReduceAlgorithm.values()) {
      out.put(a, (long) k.residentBlocksPerSm(a) * sms);
    }
    return out;
  }

  /** The CUDA device ordinal this rank runs on. */
  @Override
  public int deviceIndex() {
    return deviceIndex;
  }

  /** The primary context of this group's device, which callers' buffers live in. */
  @Override
  public CUcontext context() {
    return context;
  }

  @Override
  public int rank() {
    return rank;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public String backend() {
    return "cuda";
  }

  @Override
  public Duration timeout() {
    return timeout;
  }

  @Override
  public Store store() {
    return store;
  }

  @Override
  public Work allReduce(TensorBuffer input, TensorBuffer output, ReduceOp op) {
    CollectiveChecks.sameShape("allReduce", input, output);
    DeviceBuffer in = deviceBuffer("allReduce", input);
    DeviceBuffer out = deviceBuffer("allReduce", output);
    CUstream stream = begin(in.stream());
    return route.allReduce(
        in,
        out,
        op,
        stream,
        () -> "allReduce(" + in.count() + " " + in.dataType() + ", " + op + ")");
  }

  @Override
  public Work broadcast(TensorBuffer buffer, int root) {
    CollectiveChecks.root("broadcast", root, size);
    DeviceBuffer b = deviceBuffer("broadcast", buffer);
    CUstream stream = begin(b.stream());
    return route.broadcast(
        b,
        root,
        stream,
        () -> "broadcast(" + b.count() + " " + b.dataType() + ", root " + root + ")");
  }

  @Override
  public Work allGather(TensorBuffer input, TensorBuffer output) {
    CollectiveChecks.gathered("allGather", input, output, size);
    DeviceBuffer in = deviceBuffer("allGather", input);
    DeviceBuffer out = deviceBuffer("allGather", output);
    blockOrDisjoint("allGather", in, out);
    CUstream stream = begin(out.stream());
    return route.allGather(
        in, out, stream, () -> "allGather(" + input.count() + " " + input.dataType() + ")");
  }

  @Override
  public Work reduceScatter(TensorBuffer input, TensorBuffer output, ReduceOp op) {
    CollectiveChecks.gathered("reduceScatter", output, input, size);
    DeviceBuffer in = deviceBuffer("reduceScatter", input);
    DeviceBuffer out = deviceBuffer("reduceScatter", output);
    blockOrDisjoint("reduceScatter", out, in);
    CUstream stream = begin(in.stream());
    return route.reduceScatter(
        in,
        out,
        op,
        stream,
        () -> "reduceScatter(" + output.count() + " " + output.dataType() + ", " + op + ")");
  }

  /**
   * The kernels read a rank's part while others write the whole, so the part must be block {@code
   * rank} of the whole exactly, or not overlap it.
   */
  private void blockOrDisjoint(String op, DeviceBuffer part, DeviceBuffer whole) {
    DeviceBuffers.blockOrDisjoint(op, rank, part, whole);
  }

  @Override
  public Work barrier() {
    CUstream stream = begin(Cu.handle(internalStream));
    DeviceBuffer word =
        new DeviceBuffer(
            Cu.address(barrierWord), deviceIndex, Cu.handle(internalStream), 1, DataType.INT32);
    return route.barrier(word, stream, () -> "barrier()");
  }

  private DeviceBuffer deviceBuffer(String op, TensorBuffer b) {
    if (closed) {
      throw new IllegalStateException(op + " on rank " + rank + ": the cuda group is closed");
    }
    return DeviceBuffers.on("cuda", op, rank, deviceIndex, b);
  }

  /** Makes the context current and orders this call after the previous one on another stream. */
  private CUstream begin(long streamHandle) {
    // The caller's thread keeps this context current between calls unless it switches contexts
    // itself (the runtime API, ND4J included, uses the same primary context), so set it once per
    // thread rather than on every call.
    if (Thread.currentThread() != contextThread) {
      Cu.check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
      contextThread = Thread.currentThread();
    }
    if (streamHandle != lastStreamHandle) {
      lastStream = Cu.stream(streamHandle);
      lastStreamHandle = streamHandle;
      if (lastWork != null) {
        lastWork.orderBefore(lastStream);
      }
    }
    // Retire finished works now and then, so that their events return to the pool; a poll is
    // a driver call, so not on every collective.
    if (inflight.size() > 64 && (collectiveSeq & 15) == 0) {
      while (!inflight.isEmpty() && inflight.peekFirst().poll()) {
        inflight.removeFirst();
      }
    }
    return lastStream;
  }

  private Work finish(CUstream stream, Supplier<String> what) {
    CUevent event = events.take();
    Cu.check(JCudaDriver.cuEventRecord(event, stream), "cuEventRecord");
    // A hierarchical column between hosts runs beside the streams: its failure fails the works.
    CudaWork w =
        new CudaWork(
            collectiveSeq++,
            what,
            timeout,
            context,
            events,
            event,
            route instanceof HierarchicalRoute ? route::failure : null);
    inflight.addLast(w);
    lastWork = w;
    stalls.issued(w, what);
    return w;
  }

  /**
   * Waits for this rank's collectives, meets every other rank (so no peer still writes into this
   * rank's scratch), then frees the scratch and unmaps the peers'.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    List<RuntimeException> errors = new ArrayList<>();
    JCudaDriver.cuCtxSetCurrent(context);
    for (CudaWork w : inflight) {
      try {
        w.await(timeout);
      } catch (RuntimeException e) {
        errors.add(e);
      }
    }
    inflight.clear();
    stalls.close();
    try {
      store.set(prefix + "/closed/" + rank, new byte[] {1});
      List<String> keys = new ArrayList<>();
      for (int r = 0; r < size; r++) {
        keys.add(prefix + "/closed/" + r);
      }
      store.wait(keys, timeout);
    } catch (RuntimeException e) {
      errors.add(e);
    }
    JCudaDriver.cuCtxSetCurrent(context);
    errors.addAll(route.close());
    JCudaDriver.cuMemFree(barrierWord);
    JCudaDriver.cuStreamDestroy(internalStream);
    events.destroy();
    JCudaDriver.cuDevicePrimaryCtxRelease(device);
    if (!errors.isEmpty()) {
      DdpException e = new DdpException("closing the cuda group on rank " + rank + " failed");
      errors.forEach(e::addSuppressed);
      throw e;
    }
  }
}
