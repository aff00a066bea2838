package org.edl.worker.coord;

/**
 * Where the job stands: {@code step} steps completed, the data cursor {@code samplesSeen} (every
 * sample before it was trained exactly once, whatever the parallelism was when it was), the data
 * epoch and the chunks of it finished, and the loss of the last completed step (NaN before one).
 */
public record JobPosition(long step, int dataEpoch, long samplesSeen, int finishedChunks, double lastLoss) {
  public static final JobPosition START = new JobPosition(0, 0, 0, 0, Double.NaN);

  /**
   * One more completed step that trained {@code samples} samples with mean loss {@code loss}.
   *
   * @param epochSize samples in one data epoch (0: not known yet, chunks are not counted)
   * @param chunk     samples per chunk (the job's batch size)
   */
  JobPosition completed(long samples, double loss, int epochSize, int chunk) {
    return at(step + 1, samplesSeen + samples, epochSize, chunk, loss);
  }

  /** The position at {@code step} with the cursor at {@code cursor}, chunks derived from it. */
  static JobPosition at(long step, long cursor, int epochSize, int chunk, double loss) {
    if (epochSize <= 0) {
      return new JobPosition(step, 0, cursor, 0, loss);
    }
    int epoch = (int) (cursor / epochSize);
    int done = (int) ((cursor % epochSize) / Math.max(1, chunk));
    return new JobPosition(step, epoch, cursor, done, loss);
  }

  JobPosition withStepAndCursor(long newStep, long cursor, int epochSize, int chunk) {
    JobPosition p = at(newStep, cursor, epochSize, chunk, lastLoss);
    return epochSize <= 0 ? new JobPosition(newStep, dataEpoch, cursor, finishedChunks, lastLoss) : p;
  }
}
