package dev.ddp4j.collectives.cuda;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

/**
 * Runs the cuda package's JUnit tests where there is no Maven (the GPU machine's bundle) through
 * the JUnit Platform launcher, and prints a pass/fail table. KernelBinaryTest is left out: it reads
 * the .cu source from the checkout, which the bundle does not carry (CI runs it). Arguments, if
 * any, name the test classes to run instead (e.g. {@code CudaStagedGpuTest}). Exit status 0 only if
 * none failed.
 */
public final class GpuTestMain {

  private GpuTestMain() {}

  public static void main(String[] args) {
    List<org.junit.platform.engine.DiscoverySelector> selectors = new ArrayList<>();
    for (String name : args) { // only these test classes (simple names of this package, or full)
      selectors.add(
          selectClass(name.contains(".") ? name : GpuTestMain.class.getPackageName() + "." + name));
    }
    if (selectors.isEmpty()) {
      for (Class<?> c :
          List.of(
              CudaProbeTest.class,
              CudaPlanTest.class,
              CudaAllReduceGpuTest.class,
              CudaStagedGpuTest.class,
              CudaHostsGpuTest.class,
              CudaRingGpuTest.class,
              CudaStallGpuTest.class,
              CudaSubgroupsGpuTest.class,
              CudaP2pGpuTest.class,
              dev.ddp4j.collectives.nccl.NcclGpuTest.class,
              dev.ddp4j.collectives.nccl.NcclHeaderTest.class,
              PeerAccessSettingsTest.class,
              PeerRoutingTest.class)) {
        selectors.add(selectClass(c));
      }
    }
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request().selectors(selectors).build();
    Launcher launcher = LauncherFactory.create();
    SummaryGeneratingListener summary = new SummaryGeneratingListener();
    List<String> rows = new ArrayList<>();
    TestExecutionListener table =
        new TestExecutionListener() {
          @Override
          public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (id.isTest()) {
              rows.add(
                  String.format(
                      "%-8s %s%s",
                      result.getStatus(),
                      id.getSource()
                              .filter(
                                  src ->
                                      src
                                          instanceof
                                          org.junit.platform.engine.support.descriptor.MethodSource)
                              .map(
                                  src ->
                                      ((org.junit.platform.engine.support.descriptor.MethodSource)
                                                  src)
                                              .getClassName()
                                              .replaceAll(".*\\.", "")
                                          + ".")
                              .orElse("")
                          + id.getLegacyReportingName(),
                      result.getThrowable().map(t -> "  <- " + t).orElse("")));
            }
          }

          @Override
          public void executionSkipped(TestIdentifier id, String reason) {
            rows.add(String.format("%-8s %s  (%s)", "SKIPPED", id.getDisplayName(), reason));
          }
        };
    launcher.execute(request, summary, table);
    System.out.println("==== cuda package tests");
    rows.forEach(System.out::println);
    summary.getSummary().printTo(new PrintWriter(System.out));
    System.exit(summary.getSummary().getTotalFailureCount() == 0 ? 0 : 1);
  }
}
