package org.edl.client;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSpec;
import org.edl.worker.checkpoint.Checkpoint;
import org.edl.worker.checkpoint.CheckpointDirectory;
import org.edl.worker.checkpoint.CheckpointMeta;
import org.edl.worker.data.DatasetSummary;
import org.edl.worker.data.SyntheticSpec;
import org.edl.worker.model.IncompatibleStateException;
import org.edl.worker.model.ModelFactory;
import org.edl.worker.model.TrainableModel;

/**
 * {@code edl submit --resume-from}: checks at submission, before anything is started, that the
 * location holds a checkpoint that verifies and continues this job, and pins the job to that one
 * checkpoint (a directory of checkpoints may get a newer one before the workers start).
 */
public final class ResumeCheck {
  private ResumeCheck() {}

  /**
   * The job started from the newest verifying checkpoint at {@code spec.resumeFrom()}, its own
   * directory in the spec; unchanged when the job resumes from nothing.
   *
   * @throws InvalidInputException naming {@code resume-from} and the path
   */
  public static JobSpec resolve(Configuration conf, JobSpec spec) {
    String location = spec.checkpoints().resumeFrom();
    if (location.isEmpty()) {
      return spec;
    }
    Checkpoint c;
    try {
      c = CheckpointDirectory.readNewestValid(conf, location);
    } catch (IOException | IllegalArgumentException e) {
      throw new InvalidInputException("resume-from", location, "no usable checkpoint: " + e.getMessage());
    }
    CheckpointMeta m = c.meta();
    String model = "emulated".equals(spec.training().backend())
        ? "emulated:" + spec.training().model() : spec.training().model();
    if (!m.model().equals(model)) {
      throw new InvalidInputException("resume-from", location, "checkpoint " + c.path() + " holds model "
          + m.model() + "; this job trains " + model);
    }
    // The data's size and shape are known here only for synthetic data; the workers check a file's.
    int samples = m.epochSize();
    if (SyntheticSpec.isSynthetic(spec.data().source()) && "cpu".equals(spec.training().backend())) {
      SyntheticSpec s = SyntheticSpec.parse(spec.data().source());
      samples = s.samples();
      TrainableModel shaped = ModelFactory.create(spec, new DatasetSummary(s.samples(), s.features(), s.classes()));
      if (shaped.parameters().length != m.parameterCount()) {
        throw new InvalidInputException("resume-from", location, "checkpoint " + c.path() + " holds "
            + m.parameterCount() + " parameters of " + m.model() + "; this job's has " + shaped.parameters().length);
      }
    }
    try {
      m.requireContinuable(spec, samples, c.path().toString());
    } catch (IncompatibleStateException e) {
      throw new InvalidInputException("resume-from", location, e.getMessage());
    }
    if (m.nextStep() >= spec.training().steps()) {
      throw new InvalidInputException("resume-from", location, "checkpoint " + c.path() + " is at step "
          + m.nextStep() + ": nothing left of the job's steps=" + spec.training().steps());
    }
    return spec.toBuilder().resumeFrom(c.path().toString()).build();
  }
}
