package dev.ddp4j.testing;

import dev.ddp4j.collectives.topology.CudaProbe;
import java.util.Optional;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Disables {@link GpuTest}s with CudaProbe's reason where no GPU is usable. */
public final class GpuCondition implements ExecutionCondition {

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    Optional<String> why = CudaProbe.unavailableReason();
    return why.map(r -> ConditionEvaluationResult.disabled("needs an NVIDIA GPU: " + r))
        .orElseGet(() -> ConditionEvaluationResult.enabled("a CUDA GPU is present"));
  }
}
