package dev.ddp4j.launcher.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code doctor} against recorded machines (src/test/resources/doctor/). */
class DoctorFixtureTest {

  @Test
  void aHealthyNvSwitchNodeShouldPassEveryCheck() {
    DoctorRun r = DoctorRun.of(new RecordedMachine("dgx-h100"));
    assertThat(r.out()).doesNotContain("WARN ", "FAIL ");
    assertThat(r.exitStatus()).isZero();
    assertThat(r.line("gpu"))
        .contains("8 x NVIDIA H100 80GB HBM3 (compute capability 9.0), driver 535.104.05");
    assertThat(r.line("peer-access"))
        .contains("every NVLink and same-switch GPU pair has peer access");
    assertThat(r.line("shm")).contains("8 GPU ranks pass data over CUDA IPC");
    assertThat(r.line("numa"))
        .contains(
            "GPU 0,1,2,3 on node 0 (CPUs 0-55,112-167)",
            "GPU 4,5,6,7 on node 1",
            "numactl --cpunodebind=N");
    assertThat(r.line("network")).contains("ens21f0 10.10.0.11 (MTU 9000)");
    assertThat(r.line("rdma"))
        .contains("mlx5_0 (InfiniBand)", "libnccl.so.2 at /usr/lib/x86_64-linux-gnu/libnccl.so.2");
    assertThat(r.line("memlock")).contains("unlimited");
    assertThat(r.line("nd4j")).contains("no program class path given");
    assertThat(r.out().lines().reduce((a, b) -> b).orElseThrow())
        .isEqualTo("doctor on dgx-h100-01: OK (11 checks, 0 WARN, 0 FAIL)");
  }

  @Test
  void anAcsBlockedSwitchPairShouldBeNamedWithItsPredictedCost() {
    DoctorRun r = DoctorRun.of(new RecordedMachine("pcie-acs"));
    assertThat(r.lines("peer-access")).hasSize(1);
    String line = r.line("peer-access");
    assertThat(line)
        .startsWith("WARN")
        .contains("GPU0-GPU1 (PIX) have no peer access", "-- fix: PCIe ACS");
    // The plan's own prediction, as is and with the pair: the ring then stays on the switches.
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("([0-9.]+) GB/s as is, ([0-9.]+) GB/s with this pair")
            .matcher(line);
    assertThat(m.find()).as(line).isTrue();
    assertThat(Double.parseDouble(m.group(2))).isGreaterThan(Double.parseDouble(m.group(1)));
    // Only the denied pair is named.
    assertThat(r.out()).doesNotContain("GPU0-GPU4", "GPU1-GPU2");
    // The ring goes around the pair over IPC: no hop through host memory, so no /dev/shm needed.
    assertThat(r.line("shm")).startsWith("OK").contains("no shared memory needed");
    assertThat(r.exitStatus()).as("WARN alone exits 0").isZero();
  }

  @Test
  void aContainersSixtyFourMegabyteShmShouldFailForSixteenCpuRanks() {
    DoctorRun r = DoctorRun.of(new RecordedMachine("container-64m"), "--nproc-per-node=16");
    String shm = r.line("shm");
    assertThat(shm)
        .startsWith("FAIL")
        .contains(
            "16 cpu ranks' rings",
            "/dev/shm, which has only 64.0 MiB free",
            "docker run --shm-size=");
    assertThat(r.line("ptrace")).startsWith("WARN").contains("ptrace_scope=2");
    assertThat(r.line("numa")).contains("numactl is not on the PATH");
    assertThat(r.line("gpu")).startsWith("OK").contains("no GPU");
    assertThat(r.exitStatus()).isEqualTo(1);
  }

  @Test
  void ringsThatFitAContainersSixtyFourMegabytesShouldPass() {
    // 8 files of 512 B + 8 rings of 8 slots + 8 message rings of 2 slots: 40.1 MiB
    DoctorRun eight = DoctorRun.of(new RecordedMachine("container-64m"), "--nproc-per-node=8");
    assertThat(eight.line("shm")).startsWith("OK").contains("need 40.1 MiB");
    DoctorRun r =
        DoctorRun.of(
            new RecordedMachine("container-64m")
                .with("DDP4J_SHM_SLOTS", "2")
                .with("DDP4J_SHM_SLOT_BYTES", "32768"),
            "--nproc-per-node=16");
    // 16 files of 512 B + 16 rings and 16 message rings of 2 slots of 32 KiB: 32.2 MiB
    assertThat(r.line("shm")).startsWith("OK").contains("need 32.2 MiB");
    DoctorRun big =
        DoctorRun.of(
            new RecordedMachine("dgx-h100")
                .with("DDP4J_BACKEND", "cpu")
                .with("DDP4J_SHM_DIR", "/dev/shm"),
            "--nproc-per-node=4");
    assertThat(big.line("shm")).startsWith("OK").contains("(DDP4J_SHM_DIR)");
  }

  @Test
  void aSocketInterfaceThatMatchesNothingShouldFailNamingTheUpOnes() {
    DoctorRun r = DoctorRun.of(new RecordedMachine("dgx-h100").with("DDP4J_SOCKET_IFNAME", "ib"));
    assertThat(r.line("network"))
        .startsWith("FAIL")
        .contains("DDP4J_SOCKET_IFNAME=ib matches no interface", "[lo, ens21f0]");
    assertThat(r.exitStatus()).isEqualTo(1);
  }

  @Test
  void aTakenStorePortShouldFailNamingThePort() {
    DoctorRun r = DoctorRun.of(new RecordedMachine("dgx-h100").portTaken(29500));
    assertThat(r.line("store-port"))
        .startsWith("FAIL")
        .contains("127.0.0.1:29500", "Address already in use", "--master-port=");
  }

  @Test
  void aMultiNodeJobWithoutASecretShouldFailBeforeJoining() {
    DoctorRun r = DoctorRun.of(new RecordedMachine("dgx-h100"), "--nnodes=2", "--rdzv-timeout=1");
    assertThat(r.line("secret")).startsWith("FAIL").contains("2-node job needs one secret");
    assertThat(r.lines("store-join")).isEmpty();
    assertThat(r.exitStatus()).isEqualTo(1);
  }

  @Test
  void jsonShouldCarryEveryFindingAndTheWorst() {
    DoctorRun r = DoctorRun.of(new RecordedMachine("pcie-acs"), "--json");
    assertThat(r.out()).startsWith("{\"host\": \"pcie-acs\", \"worst\": \"WARN\", \"checks\": [");
    assertThat(r.out())
        .contains("{\"status\": \"WARN\", \"check\": \"peer-access\", \"saw\": \"GPU0-GPU1 (PIX)");
    assertThat(r.out().lines().filter(l -> l.startsWith("  {\"status\"")).count()).isEqualTo(11);
  }

  @Test
  void nd4jsCudaLibraryWithoutHopperKernelsShouldFailOnTheH100sAndPassOnAnA6000(@TempDir Path dir) {
    String cuda = Nd4jJars.cuda(dir, Nd4jJars.fixtureLibrary()).toString();
    DoctorRun h100 = DoctorRun.of(new RecordedMachine("dgx-h100"), "--classpath=" + cuda);
    assertThat(h100.line("nd4j"))
        .startsWith("FAIL")
        .contains(
            "GPU 0,1,2,3,4,5,6,7 (NVIDIA H100 80GB HBM3, compute capability 9.0)",
            "machine code for sm_75, sm_86 and no PTX",
            "build without -Pnd4j-cuda");
    assertThat(h100.exitStatus()).isEqualTo(1);
    DoctorRun a6000 = DoctorRun.of(new RecordedMachine("a6000-workstation"), "-cp", cuda);
    assertThat(a6000.line("nd4j")).startsWith("OK").contains("runs on every GPU here");
    assertThat(a6000.line("gpu")).contains("1 x NVIDIA RTX A6000 (compute capability 8.6)");
  }
}
