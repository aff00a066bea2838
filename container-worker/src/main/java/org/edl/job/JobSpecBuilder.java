package org.edl.job;


/**
 * Builds a {@link JobSpec} field by field, named as on the command line and in
 * {@code job.properties}; {@link #build()} validates.
 */
public final class JobSpecBuilder {
  private String name;
  private String queue = "";
  private String output = "";
  private String model;
  private String backend;
  private long steps;
  private int batchSize;
  private BatchRule batchRule;
  private double learningRate;
  private int hidden;
  private long seed;
  private boolean profileSync;
  private Script script = Script.NONE;
  private String data;
  private String format;
  private String dataCache = Data.CACHE_WITH_JOB;
  private int workers;
  private int minWorkers;
  private int maxWorkers;
  private long gatherMs = Scale.WAIT_FOR_ALL;
  private int gpusPerWorker;
  private int workerMemoryMb;
  private int workerVcores;
  private Checkpoints checkpoints = Checkpoints.DEFAULT;
  private Stragglers stragglers = Stragglers.OFF;
  private Growth growth = Growth.OFF;
  private Recovery recovery = Recovery.DEFAULT;
  private boolean timeline;
  private String ringTransport = JobSpec.RING_TRANSPORT_AUTO;

  JobSpecBuilder() {}

  public JobSpecBuilder name(String v) {
    name = v;
    return this;
  }

  public JobSpecBuilder queue(String v) {
    queue = v;
    return this;
  }

  public JobSpecBuilder output(String v) {
    output = v;
    return this;
  }

  public JobSpecBuilder model(String v) {
    model = v;
    return this;
  }

  public JobSpecBuilder backend(String v) {
    backend = v;
    return this;
  }

  /** A user's script that every worker runs ({@link Script#NONE}: a built-in model); names the model after it. */
  public JobSpecBuilder script(Script s) {
    script = s == null ? Script.NONE : s;
    if (script.isSet()) {
      model = Script.MODEL_PREFIX + java.nio.file.Path.of(script.file()).getFileName();
      // The script reads its own data; the job file still names a source and format.
      data = data == null ? "" : data;
      format = format == null ? "auto" : format;
    }
    return this;
  }

  /** Emulated backend only: see {@link Training#profileSync()}. */
  public JobSpecBuilder profileSync(boolean v) {
    profileSync = v;
    return this;
  }

  public JobSpecBuilder steps(long v) {
    steps = v;
    return this;
  }

  public JobSpecBuilder batchSize(int v) {
    batchSize = v;
    return this;
  }

  public JobSpecBuilder batchRule(BatchRule v) {
    batchRule = v;
    return this;
  }

  public JobSpecBuilder learningRate(double v) {
    learningRate = v;
    return this;
  }

  public JobSpecBuilder hidden(int v) {
    hidden = v;
    return this;
  }

  public JobSpecBuilder seed(long v) {
    seed = v;
    return this;
  }

  public JobSpecBuilder data(String v) {
    data = v;
    return this;
  }

  public JobSpecBuilder format(String v) {
    format = v;
    return this;
  }

  /** See {@link Data#cache}; {@link Data#CACHE_WITH_JOB} unless set. */
  public JobSpecBuilder dataCache(String v) {
    dataCache = v;
    return this;
  }

  public JobSpecBuilder workers(int v) {
    workers = v;
    return this;
  }

  public JobSpecBuilder minWorkers(int v) {
    minWorkers = v;
    return this;
  }

  public JobSpecBuilder maxWorkers(int v) {
    maxWorkers = v;
    return this;
  }

  /** See {@link Scale#gatherMs}; negative (the default here): wait for all workers. */
  public JobSpecBuilder gatherMs(long v) {
    gatherMs = v;
    return this;
  }

  public JobSpecBuilder gpusPerWorker(int v) {
    gpusPerWorker = v;
    return this;
  }

  public JobSpecBuilder workerMemoryMb(int v) {
    workerMemoryMb = v;
    return this;
  }

  public JobSpecBuilder workerVcores(int v) {
    workerVcores = v;
    return this;
  }

  /** The periodic checkpoint schedule; the checkpoint the job starts from is {@link #resumeFrom}. */
  public JobSpecBuilder checkpoints(long everyBatches, int everyMinutes, int kept) {
    checkpoints = new Checkpoints(everyBatches, everyMinutes, kept, checkpoints.resumeFrom());
    return this;
  }

  /** The checkpoint at {@code location} the job starts from (null or empty: from scratch). */
  public JobSpecBuilder resumeFrom(String location) {
    checkpoints = new Checkpoints(checkpoints.everyBatches(), checkpoints.everyMinutes(), checkpoints.kept(),
        location == null ? "" : location.trim());
    return this;
  }

  /** Whether and how the job grows into idle GPUs ({@link Growth#OFF} unless set). */
  public JobSpecBuilder growth(Growth v) {
    growth = v;
    return this;
  }

  /** Straggler detection as given (0 for either number: off). */
  public JobSpecBuilder stragglers(double factor, int batches, boolean replace) {
    stragglers = new Stragglers(factor, batches, replace);
    return this;
  }

  public JobSpecBuilder recovery(Recovery v) {
    recovery = v;
    return this;
  }

  /** Whether the workers copy their timelines next to the model (see {@link JobSpec#timeline()}). */
  public JobSpecBuilder timeline(boolean v) {
    timeline = v;
    return this;
  }

  /** How ring links within a host carry the gradient (see {@link JobSpec#ringTransport()}). */
  public JobSpecBuilder ringTransport(String v) {
    ringTransport = v;
    return this;
  }

  /**
   * The job, validated.
   *
   * @throws InvalidInputException naming the first field that is wrong, and its value
   */
  public JobSpec build() {
    return new JobSpec(name, queue,
        new Training(model, backend, steps, batchSize, batchRule, learningRate, hidden, seed, profileSync),
        new Data(data, format, dataCache),
        new Scale(workers, minWorkers, maxWorkers, gatherMs < 0 ? Scale.WAIT_FOR_ALL : gatherMs), growth,
        new Resources(gpusPerWorker, workerMemoryMb, workerVcores),
        checkpoints, stragglers, recovery, output, script, timeline,
        ringTransport).validate();
  }
}
