package org.edl.scheduler.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Gives each job one of the profiled models: the trace's own where it names one, otherwise one
 * drawn at random with a fixed seed (the Philly trace hides architectures; the Tiresias authors
 * did the same). The draw is made for every job in submission order, so a job keeps its model
 * whichever policy runs and whether or not other jobs name theirs.
 */
public final class ModelAssigner {
  private ModelAssigner() {}

  public static ThroughputModel[] assign(Trace trace, Map<String, ThroughputModel> models, long seed) {
    List<ThroughputModel> byName = new ArrayList<>(models.values());
    Random rnd = new Random(seed);
    ThroughputModel[] out = new ThroughputModel[trace.jobs().size()];
    for (int i = 0; i < out.length; i++) {
      TraceJob j = trace.jobs().get(i);
      ThroughputModel drawn = byName.get(rnd.nextInt(byName.size()));
      if (j.model() == null) {
        out[i] = drawn;
      } else {
        out[i] = models.get(j.model());
        if (out[i] == null) {
          throw new TraceFormatException(trace.source(), 0, "model", j.model(),
              "job " + i + " names a model with no profile; known: " + models.keySet());
        }
      }
    }
    return out;
  }
}
