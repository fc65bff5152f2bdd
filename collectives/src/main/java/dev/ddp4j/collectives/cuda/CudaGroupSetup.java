package dev.ddp4j.collectives.cuda;

import dev.ddp4j.Store;
import dev.ddp4j.WorkerEnvironment;
import dev.ddp4j.collectives.gpu.GroupDevice;
import dev.ddp4j.collectives.gpu.GroupRank;
import dev.ddp4j.collectives.gpu.StreamOrder;
import dev.ddp4j.collectives.log.DebugLog;
import dev.ddp4j.collectives.plan.Algorithm;
import dev.ddp4j.collectives.plan.Plan;
import dev.ddp4j.collectives.plan.PlanAgreement;
import dev.ddp4j.collectives.plan.PlannerOptions;
import dev.ddp4j.collectives.stall.StallInspector;
import dev.ddp4j.spi.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import jcuda.driver.JCudaDriver;

/**
 * Makes the parts of a {@link CudaProcessGroup}, collectively with the other ranks: this rank's GPU
 * (one per local rank, or shared round robin under {@code DDP4J_CUDA_SHARE_GPUS=1}), the peers'
 * directory and access ({@link PeerDirectory}), the agreed plan ({@link PlanAgreement}), between
 * hosts the agreed inter-host transport ({@link InterHostChoice}), and the route that runs the plan
 * ({@link CudaRoutes}).
 */
final class CudaGroupSetup {

  private static final int DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;

  private CudaGroupSetup() {}

  /** What a cuda group is made of; {@code works} already ends the route's collectives. */
  record Parts(
      GroupRank member,
      StreamOrder order,
      String prefix,
      StallInspector stalls,
      IssuedWorks works,
      Plan plan,
      PlanChooser planChooser,
      CudaRoute route,
      Basis basis) {}

  /**
   * Where a rank's GPU is, as the group that placed it decided: the CUDA ordinal, the logical GPU
   * that routing and the plan name it by (its {@code LOCAL_RANK} in the job), and how many logical
   * GPUs its host's topology has (where ranks share GPUs, one per local rank of the job; 0 where
   * the group's own ranks on the host say). A subgroup keeps its parent's, so that it plans over
   * the parent's topology slice of its members.
   */
  record Placement(int deviceIndex, int logicalGpu, int hostGpus) {}

  /** What a subgroup of this group is made with: the same worker, placement, budget, settings. */
  record Basis(
      WorkerEnvironment worker, Placement placement, long scratchBudgetBytes, Settings settings) {}

  /** Where a rank of a new top-level group computes: its local rank's GPU. */
  static Placement placementOf(WorkerEnvironment worker, Settings settings) {
    boolean shareGpus = CudaSettings.shareGpus(settings);
    int gpus =
        GroupDevice.requireGpuOf(worker, shareGpus, "the cuda backend runs one process per GPU");
    // DDP4J_CUDA_SHARE_GPUS=1 (tests on machines with fewer GPUs than ranks): ranks share GPUs
    // round robin; the routing still sees one logical GPU per local rank, so that
    // DDP4J_P2P_DISABLE_PAIRS names local ranks and a ring around them runs on one GPU.
    int deviceIndex = shareGpus ? worker.localRank() % gpus : worker.localRank();
    return new Placement(deviceIndex, worker.localRank(), 0);
  }

  /**
   * Opens a group on the GPU {@code placement} names ({@link #placementOf}, or a subgroup's: its
   * parent's), {@code worker} only giving the rank, size and restart count.
   *
   * @param chooser the kernel per launch, or null for the plan's {@link PlanChooser}
   * @param scratchBudgetBytes the most device memory the scratch may take
   */
  static Parts open(
      WorkerEnvironment worker,
      Store store,
      Duration timeout,
      AllReduceChooser chooser,
      long scratchBudgetBytes,
      Settings settings,
      Placement placement) {
    PeerAccessSettings access = PeerAccessSettings.fromEnvironment(settings);
    DebugLog log = new DebugLog(settings, worker.rank());
    int rank = worker.rank();
    int size = worker.worldSize();
    boolean shareGpus = CudaSettings.shareGpus(settings);
    int deviceIndex = placement.deviceIndex();
    int logicalGpu = placement.logicalGpu();
    GroupDevice gpu = GroupDevice.open(deviceIndex);
    int[] sms = new int[1];
    JCudaDriver.cuDeviceGetAttribute(sms, DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, gpu.device());
    long groupNumber = store.add("ddp4j/cuda/groups/rank" + rank, 1);
    String prefix = "ddp4j/cuda/" + worker.restartCount() + "/" + groupNumber;
    StallInspector stalls =
        StallInspector.start(
            "cuda group " + groupNumber,
            store,
            prefix + "/",
            rank,
            size,
            StallInspector.warnMs(settings),
            log);
    StreamOrder order = new StreamOrder(gpu, timeout);
    IssuedWorks works = new IssuedWorks(order, stalls);
    AllReduceKernels kernels = size > 1 ? new AllReduceKernels() : null;
    PeerDirectory.Directory directory =
        PeerDirectory.exchange(
            rank,
            size,
            logicalGpu,
            gpu.device(),
            store,
            prefix,
            timeout,
            access,
            access.describe() + " " + CudaSettings.describeStaging(settings));
    PeerRouting routing = directory.routing();
    Settings env = settings;
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
    int localRanks = Math.max(ranksOnMyHost, placement.hostGpus());
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
    Plan plan = agreed.plan();
    PlanChooser planChooser = new PlanChooser(plan);
    AllReduceChooser choose = chooser != null ? chooser : planChooser;
    CudaRoute route =
        CudaRoutes.open(
            new CudaRoutes.Group(
                worker,
                store,
                prefix,
                groupNumber,
                timeout,
                gpu.device(),
                deviceIndex,
                gpu.context(),
                gpu.events(),
                stalls,
                works,
                settings),
            plan,
            agreed.topology(),
            routing,
            options,
            kernels,
            choose,
            scratchBudgetBytes);
    works.failWith(route);
    RouteLog.log(agreed.topology(), plan, log, rank, route.name(), residentCap, routing);
    if (inter != null) {
      RouteLog.logBetweenHosts(agreed.topology(), plan, log, inter.why());
    }
    return new Parts(
        new GroupRank(rank, size, store, timeout),
        order,
        prefix,
        stalls,
        works,
        plan,
        planChooser,
        route,
        new Basis(
            worker,
            new Placement(deviceIndex, logicalGpu, localRanks),
            scratchBudgetBytes,
            settings));
  }

  /** Resident blocks of each kernel family on the whole GPU (its SMs). */
  private static Map<Algorithm, Long> residentBlocks(AllReduceKernels k, int sms) {
    Map<Algorithm, Long> out = new EnumMap<>(Algorithm.class);
    for (Algorithm a : Algorithm.kernels()) {
      out.put(a, (long) k.residentBlocksPerSm(a) * sms);
    }
    return out;
  }
}
