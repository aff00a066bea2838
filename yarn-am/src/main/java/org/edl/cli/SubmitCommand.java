package org.edl.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.edl.client.JobSubmitter;
import org.edl.client.ProgressFollower;
import org.edl.client.ResumeCheck;
import org.edl.client.SubmittedJob;
import org.edl.job.Data;
import org.edl.job.Growth;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSpec;
import org.edl.job.Recovery;
import org.edl.job.Scale;
import org.edl.job.Script;
import org.edl.job.WorkerEnv;
import org.edl.worker.data.SyntheticSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code edl submit}: submits a training job and follows it to its end. */
@Command(name = "submit", mixinStandardHelpOptions = true,
    description = "Submit a training job to YARN and follow its progress until it ends.")
public final class SubmitCommand implements Callable<Integer> {
  @ParentCommand
  EdlCli cli;

  @Option(names = "--name", description = "YARN application name (default: edl-<model>, or edl-<script file>).")
  String name;
  @Option(names = "--model", defaultValue = "mlp", description = "softmax or mlp; with --backend emulated a profiled model (default: ${DEFAULT-VALUE}).")
  String model;
  @Option(names = "--data", defaultValue = SyntheticSpec.PREFIX,
      description = "A LIBSVM/CSV file (HDFS or any Hadoop file system) or synthetic:samples=..,features=..,classes=..,seed=.. (default: ${DEFAULT-VALUE}).")
  String data;
  @Option(names = "--format", defaultValue = "auto", description = "auto, libsvm or csv (default: ${DEFAULT-VALUE}).")
  String format;
  @Option(names = "--data-cache", defaultValue = Data.CACHE_WITH_JOB, paramLabel = "job|off|DIR",
      description = "Where the first worker to parse a LIBSVM/CSV file leaves a binary copy that workers"
          + " joining later read instead of parsing: job (the job's staging directory, deleted with the job),"
          + " off, or a directory, kept for later jobs on the same file; unless off, each node also keeps a copy"
          + " on local disk, deleted with the job, that the job's later workers there read without HDFS"
          + " (default: ${DEFAULT-VALUE}).")
  String dataCache;
  @Option(names = "--workers", defaultValue = "2", description = "Workers to start with (default: ${DEFAULT-VALUE}).")
  int workers;
  @Option(names = "--min-workers", description = "Fewest workers the job runs with (default: --workers).")
  Integer minWorkers;
  @Option(names = "--max-workers", description = "Most workers the job runs with (default: --workers).")
  Integer maxWorkers;
  @Option(names = "--gather-ms", defaultValue = "" + Scale.DEFAULT_GATHER_MS, paramLabel = "MS|off",
      description = "Once --min-workers have registered, wait this long for the rest of --workers, then start"
          + " with those there (the others join stop-free as YARN grants them); off: wait for all"
          + " (default: ${DEFAULT-VALUE}).")
  String gatherMs;
  @Option(names = "--grow", paramLabel = "on|off",
      description = "An elastic job (--min-workers < --max-workers) grows into idle GPUs by itself, one worker"
          + " at a time as an elastic extra, and gives them back when the scheduler warns (default: on; off with"
          + " --torchrun).")
  String grow;
  @Option(names = "--grow-efficiency", defaultValue = "" + Growth.DEFAULT_EFFICIENCY, paramLabel = "E|off",
      description = "Grow only while one more worker adds at least E (0..1) of an average worker's throughput;"
          + " off: take idle GPUs up to --max-workers whatever the throughput (default: ${DEFAULT-VALUE}).")
  String growEfficiency;
  @Option(names = "--grow-hold-off-ms", defaultValue = "" + Growth.DEFAULT_HOLD_OFF_MS, paramLabel = "MS",
      description = "After giving workers back, ask for none for this long (default: ${DEFAULT-VALUE}).")
  long growHoldOffMs;
  @Option(names = "--mode", defaultValue = "edl", paramLabel = "edl|stop-resume",
      description = "How the job changes its size by itself, growing and giving back when warned: edl"
          + " (stop-free) or stop-resume (checkpoint, stop every worker, relaunch; the baseline) (default: ${DEFAULT-VALUE}).")
  String mode;
  @Option(names = "--backend", defaultValue = "cpu", paramLabel = "cpu|cuda|emulated",
      description = "cpu; cuda: softmax or mlp with their matrix products on the worker's GPU (cuBLAS through JCuda);"
          + " or emulated: a profiled model (--model imagenet, cifar10, yolov3 or bert) of its real"
          + " size whose steps take as long as its measured profile says; it learns nothing (default: ${DEFAULT-VALUE}).")
  String backend;
  @Option(names = "--emulated-sync", defaultValue = JobSpec.EMULATED_SYNC_TRANSFER, paramLabel = "transfer|profile",
      description = "With --backend emulated: transfer all-reduces the real gradient; profile waits the profile's"
          + " sync time instead and all-reduces a token (for machines too small for the real size) (default: ${DEFAULT-VALUE}).")
  String emulatedSync;
  @Option(names = "--gpus-per-worker", defaultValue = "1", description = "yarn.io/gpu per worker container, 0 allowed (default: ${DEFAULT-VALUE}).")
  int gpusPerWorker;
  @Option(names = "--worker-memory", defaultValue = "1024", paramLabel = "MB", description = "Memory per worker container (default: ${DEFAULT-VALUE}).")
  int workerMemoryMb;
  @Option(names = "--worker-vcores", defaultValue = "1", description = "Vcores per worker container (default: ${DEFAULT-VALUE}).")
  int workerVcores;
  @Option(names = "--steps", defaultValue = "200", description = "Mini-batches to train (default: ${DEFAULT-VALUE}).")
  long steps;
  @Option(names = "--batch-size", defaultValue = "64", description = "Global batch, or per-worker batch under fixed-per-worker (default: ${DEFAULT-VALUE}).")
  int batchSize;
  @Option(names = "--batch-rule", defaultValue = "fixed-global", description = "fixed-global or fixed-per-worker (default: ${DEFAULT-VALUE}).")
  String batchRule;
  @Option(names = "--learning-rate", defaultValue = "0.1", description = "Base learning rate (default: ${DEFAULT-VALUE}).")
  double learningRate;
  @Option(names = "--hidden", defaultValue = "32", description = "Hidden units of the MLP (default: ${DEFAULT-VALUE}).")
  int hidden;
  @Option(names = "--seed", defaultValue = "1", description = "Seed for initialisation and sample order (default: ${DEFAULT-VALUE}).")
  long seed;
  @Option(names = "--output", defaultValue = "", description = "HDFS directory for the model and metrics (default: /user/<user>/edl/<appId>).")
  String output;
  @Option(names = "--queue", defaultValue = "", description = "YARN queue (default: the scheduler's choice).")
  String queue;
  @Option(names = "--checkpoint-every-batches", defaultValue = "" + JobSpec.DEFAULT_CHECKPOINT_EVERY_BATCHES,
      description = "Periodic checkpoint after this many batches, or --checkpoint-every-minutes, whichever first; 0: never by count (default: ${DEFAULT-VALUE}).")
  long checkpointEveryBatches;
  @Option(names = "--checkpoint-every-minutes", defaultValue = "" + JobSpec.DEFAULT_CHECKPOINT_EVERY_MINUTES,
      description = "Periodic checkpoint after this many minutes; 0: never by time (default: ${DEFAULT-VALUE}).")
  int checkpointEveryMinutes;
  @Option(names = "--checkpoints-kept", defaultValue = "" + JobSpec.DEFAULT_CHECKPOINTS_KEPT,
      description = "Newest periodic checkpoints kept; older ones are deleted (default: ${DEFAULT-VALUE}).")
  int checkpointsKept;
  @Option(names = "--resume-from", defaultValue = "", paramLabel = "DIR",
      description = "Start from a checkpoint: a checkpoint's directory or a directory of them (the newest that verifies).")
  String resumeFrom;
  @Option(names = "--straggler-factor", paramLabel = "X|off", description = "A worker"
      + " slower than X times the median batch time is slow; 0 or off: no straggler detection (default: 1.2;"
      + " off with --script, where a script's own measure of its computing is compared).")
  String stragglerFactor;
  @Option(names = "--straggler-batches", defaultValue = "10", paramLabel = "N|off", description = "Slow for N"
      + " consecutive batches, the leader removes the worker; 0 or off: no detection (default: ${DEFAULT-VALUE}).")
  String stragglerBatches;
  @Option(names = "--replace-stragglers", description = "Start a new worker container for each straggler removed.")
  boolean replaceStragglers;
  @Option(names = "--timeline", description = "Every worker copies its timeline (process start, registration,"
      + " each batch and switch, in wall-clock ms) to <output>/timeline/<container>.csv as it ends; costs each"
      + " ending worker about 2 s more of its container.")
  boolean timeline;
  @Option(names = "--ring-transport", defaultValue = JobSpec.RING_TRANSPORT_AUTO, paramLabel = "auto|tcp",
      description = "How the gradient all-reduce reaches a worker on the same host: auto, through shared memory"
      + " (the host's /dev/shm, or the directory in the containers' " + WorkerEnv.SHARED_MEMORY_DIR
      + ") where both ends can map it, else TCP; tcp: always TCP. Workers on different hosts use TCP either way"
      + " (default: ${DEFAULT-VALUE}).")
  String ringTransport;
  @Option(names = "--recovery", paramLabel = "consistent|approximate", description = "After a worker fails:"
      + " reload the latest checkpoint (consistent) or carry on with the survivors and redo the current batch"
      + " (approximate). Default: approximate when " + Recovery.APPROXIMATE_ENV + "=1 is set, else consistent.")
  String recovery;
  @Option(names = "--sync-timeout-ms", defaultValue = "0", paramLabel = "MS", description = "A worker that has"
      + " not reported a step this long after the first member did is declared failed; 0: derived from the batch time (default: ${DEFAULT-VALUE}).")
  long syncTimeoutMs;
  @Option(names = "--max-worker-failures", defaultValue = "" + Recovery.DEFAULT_MAX_WORKER_FAILURES,
      description = "Failed workers replaced before the job is failed (default: ${DEFAULT-VALUE}).")
  int maxWorkerFailures;
  @Option(names = "--script", paramLabel = "FILE", description = "A PyTorch script every worker runs as its"
      + " child, elastic like the built-in models (it uses the edl package; docs/scripts.md); replaces --model"
      + " and --data. Its own arguments follow the options after --.")
  String script;

  @Option(names = "--torchrun", paramLabel = "FILE", description = "An unchanged torchrun script: every worker"
      + " container runs torch's elastic agent (c10d rendezvous, hosted by the ApplicationMaster) with"
      + " --procs-per-worker processes, and at each scale-out or scale-in every process of the job restarts"
      + " and resumes from the script's own checkpoint, as under torchrun --nnodes=MIN:MAX (docs/scripts.md).")
  String torchrun;

  @Option(names = "--python", paramLabel = "PYTHON", description = "The interpreter the workers start --script"
      + " with; it needs torch and thrift (Debian: python3-torch, python3-thrift). Default: python3, or "
      + Script.ENV_PYTHON + " with --python-env.")
  String python;

  @Option(names = "--python-env", paramLabel = "ARCHIVE", description = "A Python environment for --script"
      + " (a venv or conda-pack archive, .tar.gz, .tgz, .tar or .zip, local or on HDFS, with torch and thrift):"
      + " YARN unpacks it into every worker's directory as " + Script.ENV_DIR + "; a local one is uploaded"
      + " once to ~/" + "." + "edl/python-envs and reused by later jobs and each node's cache.")
  String pythonEnv;

  @Option(names = "--procs-per-worker", defaultValue = "0", paramLabel = "N", description = "Processes of --script"
      + " each worker runs, one per GPU with its own LOCAL_RANK, all in one process group across the job (as"
      + " torchrun --nproc-per-node); 0: one per GPU of the container under --backend cuda, 1 on the CPU"
      + " (default: ${DEFAULT-VALUE}).")
  int procsPerWorker;

  @Parameters(paramLabel = "ARGS", arity = "0..*", description = "The script's own arguments (after --).")
  List<String> scriptArgs = new ArrayList<>();

  @Option(names = "--priority", defaultValue = "0", paramLabel = "N", description = "Application priority:"
      + " the scheduler orders your own jobs by it, never ahead of other users' fair share (default: ${DEFAULT-VALUE}).")
  int priority;

  /** The submitting user's environment, where {@code USE_APPX_RECOVERY} is looked up. */
  java.util.function.Function<String, String> environment = System::getenv;

  @Override
  public Integer call() throws Exception {
    JobSpec spec = toSpec();
    spec.validate(); // before connecting anywhere
    Configuration conf = cli.configuration();
    spec = ResumeCheck.resolve(conf, spec); // before submitting anything
    if (!spec.checkpoints().resumeFrom().isEmpty()) {
      cli.spec.commandLine().getOut().println("Resuming from checkpoint " + spec.checkpoints().resumeFrom());
    }
    try (YarnClient yarn = startYarnClient(conf)) {
      return submitAndFollow(conf, yarn, spec, priority, cli.spec.commandLine().getOut());
    }
  }

  /** The one submission path: `edl submit`, `yarn jar ... submit` and `edl demo` all come here. */
  static int submitAndFollow(Configuration conf, YarnClient yarn, JobSpec spec,
      java.io.PrintWriter out) throws Exception {
    return submitAndFollow(conf, yarn, spec, 0, out);
  }

  static int submitAndFollow(Configuration conf, YarnClient yarn, JobSpec spec, int priority,
      java.io.PrintWriter out) throws Exception {
    org.edl.client.Leftovers.quietly(conf, yarn);
    JobSubmitter submitter = new JobSubmitter(conf, yarn).withPriority(priority);
    SubmittedJob job = submitter.submit(spec);
    int exit = new ProgressFollower(yarn, conf, out, Duration.ofSeconds(1)).follow(job);
    // Only once the job has ended: while it runs, `edl status` needs the secret in there.
    submitter.deleteStaging(job);
    return exit;
  }

  /** A started YARN client of {@code conf} (the demo submits through it too). */
  public static YarnClient startYarnClient(Configuration conf) {
    YarnClient yarn = YarnClient.createYarnClient();
    yarn.init(conf);
    yarn.start();
    return yarn;
  }

  JobSpec toSpec() {
    String file = scriptFile();
    String defaultName = "edl-" + (file == null ? model : java.nio.file.Path.of(file).getFileName().toString());
    return JobSpec.builder().name(name == null ? defaultName : name).model(model).data(data)
        .format(format).dataCache(dataCache).workers(workers).minWorkers(minWorkers == null ? workers : minWorkers)
        .maxWorkers(maxWorkers == null ? workers : maxWorkers).gatherMs(gatherMillis())
        .growth(new Growth(onOff("grow", grow != null ? grow : torchrun != null ? "off" : "on"), Growth.efficiencyOf(growEfficiency), growHoldOffMs, Growth.modeOf(mode)))
        .gpusPerWorker(gpusPerWorker)
        .workerMemoryMb(workerMemoryMb).workerVcores(workerVcores).steps(steps).batchSize(batchSize)
        .batchRule(JobSpec.batchRuleOf(batchRule)).learningRate(learningRate).hidden(hidden).seed(seed)
        .backend(backend).profileSync(JobSpec.emulatedSyncOf(emulatedSync)).output(output).queue(queue)
        .checkpoints(checkpointEveryBatches, checkpointEveryMinutes, checkpointsKept)
        .resumeFrom(resumeFrom == null ? "" : resumeFrom.trim())
        .stragglers(offOr("straggler-factor", stragglerFactor != null ? stragglerFactor
            : file == null ? Double.toString(JobSpec.DEFAULT_STRAGGLER_FACTOR) : "off",
            Double::parseDouble).doubleValue(),
            offOr("straggler-batches", stragglerBatches, Integer::parseInt).intValue(), replaceStragglers)
        .recovery(new Recovery(recoveryMode(), syncTimeoutMs, maxWorkerFailures))
        .script(script()).timeline(timeline).ringTransport(ringTransport).build();
  }

  /** The --script or --torchrun file, or null for a built-in model. */
  private String scriptFile() {
    if (script != null && torchrun != null) {
      throw new InvalidInputException("torchrun", torchrun, "either --script (the edl package's API) or --torchrun"
          + " (an unchanged torchrun script), not both");
    }
    String file = script != null ? script : torchrun;
    return file == null || file.isBlank() ? null : file;
  }

  private Script script() {
    String file = scriptFile();
    if (file == null) {
      if (!scriptArgs.isEmpty()) {
        throw new InvalidInputException("ARGS", String.join(" ", scriptArgs), "only a --script or --torchrun script takes arguments");
      }
      if (procsPerWorker != 0) {
        throw new InvalidInputException("procs-per-worker", procsPerWorker, "only a --script or --torchrun script runs processes of its own");
      }
      if (pythonEnv != null) {
        throw new InvalidInputException("python-env", pythonEnv, "only a --script or --torchrun script runs Python");
      }
      return Script.NONE;
    }
    String interpreter = python != null ? python : pythonEnv != null ? Script.ENV_PYTHON : "python3";
    Script s = new Script(file, scriptArgs, interpreter, procsPerWorker, pythonEnv);
    if (torchrun == null) {
      return s;
    }
    if (!SyntheticSpec.PREFIX.equals(data)) {
      // No EDL worker runs to copy it: the script's own arguments say where its data is.
      throw new InvalidInputException("data", data, "a --torchrun script reads its own data; pass where it is"
          + " in the script's arguments after --");
    }
    return s.asTorchrun();
  }

  private static boolean onOff(String field, String value) {
    return switch (value == null ? "" : value.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "on", "true", "yes" -> true;
      case "off", "false", "no" -> false;
      default -> throw new InvalidInputException(field, value, "choose on or off");
    };
  }

  private long gatherMillis() {
    if (gatherMs != null && gatherMs.trim().equalsIgnoreCase("off")) {
      return Scale.WAIT_FOR_ALL;
    }
    long ms = offOr("gather-ms", gatherMs, Long::parseLong).longValue();
    if (ms < 0) {
      throw new InvalidInputException("gather-ms", gatherMs, "must be 0 or more (or off)");
    }
    return ms;
  }

  /** The flag wins; without it {@code USE_APPX_RECOVERY=1} asks for approximate recovery. */
  private Recovery.Mode recoveryMode() {
    if (recovery != null) {
      return Recovery.modeOf(recovery);
    }
    return Recovery.approximateRequested(environment.apply(Recovery.APPROXIMATE_ENV))
        ? Recovery.Mode.APPROXIMATE : Recovery.Mode.CONSISTENT;
  }

  /** {@code off} as 0, else the number; anything else is refused naming the flag. */
  private static Number offOr(String field, String text, java.util.function.Function<String, Number> parse) {
    String t = text == null ? "" : text.trim();
    if (t.equalsIgnoreCase("off")) {
      return 0;
    }
    try {
      return parse.apply(t);
    } catch (NumberFormatException e) {
      throw new InvalidInputException(field, text, "not a number (or off)");
    }
  }
}
