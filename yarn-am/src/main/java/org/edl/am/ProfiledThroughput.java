package org.edl.am;

import java.io.IOException;
import java.util.OptionalDouble;
import java.util.function.IntUnaryOperator;
import org.edl.job.JobSpec;
import org.edl.worker.emulated.EmulatedModels;
import org.edl.worker.emulated.StepProfile;

/**
 * The throughput an {@code emulated} job's measured profile gives at each number of workers: the
 * global batch over the profile's whole step time (compute and gradient synchronisation as
 * measured on GPUs), at the placement that many workers get when packed onto nodes of {@value
 * #GPUS_PER_NODE} GPUs (the profiled machines) and the per-GPU batch the job's batch rule gives
 * them. A size whose placement the profile did not measure is unknown. The emulation's own
 * throughput on this cluster is not used: its synchronisation is real traffic on other hardware.
 */
public final class ProfiledThroughput implements ThroughputCurve {
  static final int GPUS_PER_NODE = 4;

  private final StepProfile profile;
  private final int gpusPerWorker;
  private final IntUnaryOperator globalBatch;

  /** @param globalBatch the job's samples per step at a number of workers (its batch rule) */
  public ProfiledThroughput(StepProfile profile, int gpusPerWorker, IntUnaryOperator globalBatch) {
    this.profile = profile;
    this.gpusPerWorker = Math.max(1, gpusPerWorker);
    this.globalBatch = globalBatch;
  }

  /** An {@code emulated} job's curve: its model's profile at its batch rule. */
  public static ProfiledThroughput forJob(JobSpec spec) throws IOException {
    return new ProfiledThroughput(EmulatedModels.profile(spec.training().model(), null),
        spec.resources().gpusPerWorker(), spec::globalBatchFor);
  }

  @Override
  public OptionalDouble at(int workers) {
    if (workers < 1) {
      return OptionalDouble.empty();
    }
    int gpus = workers * gpusPerWorker;
    String placement = packed(gpus);
    if (!profile.measured(placement)) {
      return OptionalDouble.empty();
    }
    int samples = globalBatch.applyAsInt(workers);
    int perGpu = (int) Math.ceil(samples / (double) gpus);
    double seconds = profile.stepSeconds(placement, perGpu);
    return seconds > 0 ? OptionalDouble.of(samples / seconds) : OptionalDouble.empty();
  }

  /** The profiles' placement of {@code gpus} packed onto full nodes: "4" per full node, the rest first. */
  static String packed(int gpus) {
    StringBuilder p = new StringBuilder();
    if (gpus % GPUS_PER_NODE > 0) {
      p.append(gpus % GPUS_PER_NODE);
    }
    p.append(String.valueOf(GPUS_PER_NODE).repeat(gpus / GPUS_PER_NODE));
    return p.toString();
  }
}
