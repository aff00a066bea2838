package org.edl.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.edl.am.ProfiledThroughput;
import org.edl.worker.emulated.EmulatedModels;
import org.edl.worker.emulated.StepProfile;

/**
 * The jobs of {@code edl bench cluster}, the same for every strategy and runner: job {@code i}
 * arrives {@code i x interval} after the first, asks for {@code gpus} GPUs, and emulates a model
 * drawn with a fixed seed. Each job keeps its global batch whatever its size (fixed-global), so
 * its work is a number of steps and more GPUs finish it sooner; the steps are chosen so that the
 * job trains for about {@code trainSeconds} on its requested GPUs by its profile. Throughput at
 * each size is the AM's own {@link ProfiledThroughput} for the job, the curve it grows by.
 */
public record ClusterPlan(List<PlannedJob> jobs, long intervalMs, int gpus) {
  /**
   * Per-GPU batch at the requested size, by model: large enough that a job gains from a second
   * node at its fixed global batch (1.5x from 4 to 8 GPUs by the profiles); at 64 per GPU the
   * profiles' slow cross-node synchronisation makes every size above 4 slower than 4.
   */
  static final Map<String, Integer> PER_GPU_BATCH = Map.of("imagenet", 200, "cifar10", 512);
  /** The models a plan may draw from. */
  static final java.util.Set<String> MODELS = new java.util.TreeSet<>(PER_GPU_BATCH.keySet());

  /**
   * @param globalBatch    samples per step, at every size
   * @param oneGpuStepS    the profile's step at one GPU with the whole global batch, the speed-up's unit
   * @param throughputByGpus samples/s by GPU count on consolidated placements, 1 to the largest the
   *                       cluster has
   */
  public record PlannedJob(int index, String model, long submitOffsetMs, int globalBatch, long steps,
      double oneGpuStepS, Map<Integer, Double> throughputByGpus) {
    String name() {
      return "edl-bench-cluster-" + index + "-" + model;
    }
  }

  public static ClusterPlan draw(int jobs, long intervalMs, int gpus, int clusterGpus, List<String> models, long seed,
      double trainSeconds) throws IOException {
    Random rnd = new Random(seed);
    Map<String, StepProfile> profiles = new TreeMap<>();
    for (String m : models) {
      if (!PER_GPU_BATCH.containsKey(m)) {
        throw new org.edl.job.InvalidInputException("models", m, "expected some of " + MODELS
            + " (emulated models whose workers fit the bench's 1 GB containers)");
      }
      profiles.put(m, EmulatedModels.profile(m, null));
    }
    List<PlannedJob> out = new ArrayList<>();
    for (int i = 0; i < jobs; i++) {
      String model = models.get(rnd.nextInt(models.size()));
      int global = gpus * PER_GPU_BATCH.get(model);
      // The AM's own curve for the job (packed placements, the batch rule's per-GPU batch).
      ProfiledThroughput profiled = new ProfiledThroughput(profiles.get(model), 1, n -> global);
      Map<Integer, Double> curve = new TreeMap<>();
      for (int n = 1; n <= clusterGpus; n++) {
        int size = n;
        curve.put(n, profiled.at(n).orElseThrow(() -> new IllegalStateException(model + ": the profile has no"
            + " packed placement of " + size + " GPUs")));
      }
      long steps = Math.max(1, Math.round(trainSeconds * curve.get(gpus) / global));
      out.add(new PlannedJob(i, model, i * intervalMs, global, steps, global / curve.get(1), curve));
    }
    return new ClusterPlan(List.copyOf(out), intervalMs, gpus);
  }
}
