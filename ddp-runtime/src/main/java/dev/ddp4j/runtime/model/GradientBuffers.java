package dev.ddp4j.runtime.model;

import java.lang.reflect.Field;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * What the adapters need to swap a model's flat gradient buffer: DL4J sets the layers' views
 * through a public method but keeps the flat array itself in a protected field, which {@code
 * getGradientsViewArray()} and the updater read.
 */
final class GradientBuffers {

  private GradientBuffers() {}

  /** Sets {@code model}'s {@code flattenedGradients} field, declared by {@code owner}. */
  static void setFlattenedGradients(Class<?> owner, Object model, INDArray flat) {
    try {
      Field f = owner.getDeclaredField("flattenedGradients");
      f.setAccessible(true);
      f.set(model, flat);
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException(
          "cannot move the gradients of this "
              + owner.getSimpleName()
              + " (DL4J's flattenedGradients field: "
              + e
              + "); set DDP4J_SHARED_GRADIENTS=0 to keep them where DL4J put them",
          e);
    }
  }

  /** A detached copy of an updater's state, or null where it has none. */
  static INDArray copyOfState(INDArray state) {
    return state == null || state.length() == 0 ? null : state.dup();
  }
}
