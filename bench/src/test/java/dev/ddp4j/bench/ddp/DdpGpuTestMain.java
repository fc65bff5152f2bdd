package dev.ddp4j.bench.ddp;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.PrintWriter;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

/**
 * Runs the device engine's JUnit tests where there is no Maven (the GPU machine's bundle) and
 * prints one line per test; exit status 0 only if none failed.
 */
public final class DdpGpuTestMain {

  private DdpGpuTestMain() {}

  public static void main(String[] args) {
    Launcher launcher = LauncherFactory.create();
    SummaryGeneratingListener summary = new SummaryGeneratingListener();
    TestExecutionListener lines =
        new TestExecutionListener() {
          @Override
          public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (id.isTest()) {
              System.out.printf(
                  "%-8s %s%s%n",
                  result.getStatus(),
                  id.getDisplayName(),
                  result.getThrowable().map(t -> "  <- " + t).orElse(""));
            }
          }

          @Override
          public void executionSkipped(TestIdentifier id, String reason) {
            System.out.printf("%-8s %s  (%s)%n", "SKIPPED", id.getDisplayName(), reason);
          }
        };
    launcher.execute(
        LauncherDiscoveryRequestBuilder.request()
            .selectors(
                selectClass(DeviceGradientReducerGpuTest.class),
                selectClass(OverlapTest.class),
                selectClass(SyntheticSpecTest.class))
            .build(),
        summary,
        lines);
    System.out.println("==== device engine tests");
    summary.getSummary().printTo(new PrintWriter(System.out));
    System.exit(summary.getSummary().getTotalFailureCount() == 0 ? 0 : 1);
  }
}
