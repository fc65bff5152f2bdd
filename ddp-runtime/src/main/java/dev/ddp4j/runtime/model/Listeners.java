package dev.ddp4j.runtime.model;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.optimize.api.TrainingListener;

/**
 * Listener bookkeeping shared by both adapters (DL4J's Model interface can set listeners but not
 * list them, so each adapter passes its model's current ones).
 */
final class Listeners {

  private Listeners() {}

  static void addFirst(
      Model model, Collection<TrainingListener> current, TrainingListener listener) {
    List<TrainingListener> all = new ArrayList<>();
    all.add(listener);
    all.addAll(current);
    model.setListeners(all);
  }

  static void remove(Model model, Collection<TrainingListener> current, TrainingListener listener) {
    List<TrainingListener> all = new ArrayList<>(current);
    all.remove(listener);
    model.setListeners(all);
  }

  static void epochStart(Model model, Collection<TrainingListener> current) {
    for (TrainingListener l : current) {
      l.onEpochStart(model);
    }
  }

  static void epochEnd(Model model, Collection<TrainingListener> current) {
    for (TrainingListener l : current) {
      l.onEpochEnd(model);
    }
  }
}
