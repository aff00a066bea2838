package org.edl.job;

import java.util.List;
import java.util.Properties;

/**
 * A user's PyTorch script that every worker runs as its child ({@code edl submit --script}), or
 * {@link #NONE} for the built-in models.
 *
 * @param file   the script's file name in the worker container's working directory (the client
 *               ships it there)
 * @param args   the script's own arguments
 * @param python the interpreter each worker starts it with
 * @param procsPerWorker how many processes of the script each worker runs, one per GPU, all in one
 *               group ({@code --procs-per-worker}); 0: the default, {@link #processes}
 * @param pythonEnv the Python environment archive YARN unpacks into every worker's directory as
 *               {@link #ENV_DIR} ({@code --python-env}: a venv or conda-pack archive; its URI once
 *               the client shipped it), or "" for the nodes' own Python
 * @param torchrun whether the script is an unchanged torchrun script ({@code edl submit --torchrun}):
 *               each worker container runs torch's own elastic agent, which restarts every process
 *               of the job at each change of membership, and nothing of the edl package
 */
public record Script(String file, List<String> args, String python, int procsPerWorker, String pythonEnv,
    boolean torchrun) {
  public static final Script NONE = new Script("", List.of(), "python3");
  /** Where a worker finds the unpacked {@link #pythonEnv}, in its working directory. */
  public static final String ENV_DIR = "python-env";
  /** The interpreter of a job with a {@link #pythonEnv} and no {@code --python}. */
  public static final String ENV_PYTHON = ENV_DIR + "/bin/python";
  /** What YARN unpacks as an archive. */
  public static final List<String> ENV_SUFFIXES = List.of(".tar.gz", ".tgz", ".tar", ".zip");
  /** The job's model name for a script job: what logs, checkpoints and the status show. */
  public static final String MODEL_PREFIX = "script:";

  public Script {
    file = file == null ? "" : file.trim();
    args = List.copyOf(args);
    python = python == null || python.isBlank() ? "python3" : python.trim();
    pythonEnv = pythonEnv == null ? "" : pythonEnv.trim();
  }

  /** A script with one process per worker on the CPU, one per GPU on {@code cuda}. */
  public Script(String file, List<String> args, String python) {
    this(file, args, python, 0);
  }

  /** A script on the nodes' own Python. */
  public Script(String file, List<String> args, String python, int procsPerWorker) {
    this(file, args, python, procsPerWorker, "");
  }

  /** A script of the edl package's API. */
  public Script(String file, List<String> args, String python, int procsPerWorker, String pythonEnv) {
    this(file, args, python, procsPerWorker, pythonEnv, false);
  }

  /** This script run as an unchanged torchrun script. */
  public Script asTorchrun() {
    return new Script(file, args, python, procsPerWorker, pythonEnv, true);
  }

  /** This script with another file name (as the client ships it) or environment (once uploaded). */
  public Script withFile(String name) {
    return new Script(name, args, python, procsPerWorker, pythonEnv, torchrun);
  }

  public Script withPythonEnv(String env) {
    return new Script(file, args, python, procsPerWorker, env, torchrun);
  }

  /** Checks a set script's settings against the job's backend and GPUs; the message names the flag. */
  void validate(String backend, int gpusPerWorker) {
    if (!"cpu".equals(backend) && !"cuda".equals(backend)) {
      throw new InvalidInputException("backend", backend, "a script trains with gloo on the CPU (cpu) or NCCL on"
          + " its GPUs (cuda)");
    }
    if (!pythonEnv.isEmpty() && ENV_SUFFIXES.stream().noneMatch(pythonEnv::endsWith)) {
      throw new InvalidInputException("python-env", pythonEnv, "YARN unpacks an archive named "
          + String.join(", ", ENV_SUFFIXES) + " (a venv or conda-pack archive)");
    }
    if (procsPerWorker < 0) {
      throw new InvalidInputException("procs-per-worker", procsPerWorker, "a number of processes, or 0 for the"
          + " default (one per GPU under --backend cuda, one on the CPU)");
    }
    if ("cuda".equals(backend) && procsPerWorker > gpusPerWorker) {
      throw new InvalidInputException("procs-per-worker", procsPerWorker, "each process trains on one of its"
          + " container's GPUs, and --gpus-per-worker is " + gpusPerWorker);
    }
  }

  /**
   * Under {@link #torchrun}, refuses what the script does itself or what needs the edl package's step
   * reports: growing by measured throughput, stop-resume, and a start from EDL's checkpoints.
   */
  void validateTorchrun(Growth growth, String resumeFrom) {
    if (!torchrun) {
      return;
    }
    if (growth.enabled()) {
      throw new InvalidInputException("grow", "on", "a --torchrun job reports no throughput to grow by; scale it"
          + " with edl scale-out and scale-in");
    }
    if (growth.mode() == ScaleMode.STOP_RESUME) {
      throw new InvalidInputException("mode", "stop-resume", "a --torchrun job already restarts every process at a"
          + " change, from the script's own checkpoint");
    }
    if (!resumeFrom.isEmpty()) {
      throw new InvalidInputException("resume-from", resumeFrom, "a --torchrun script loads its own checkpoint");
    }
  }

  /**
   * The processes each worker runs: as asked, else one per GPU of its container on {@code cuda}
   * (as {@code torchrun --nproc-per-node} is used) and one on the CPU.
   */
  public int processes(String backend, int gpusPerWorker) {
    if (procsPerWorker > 0) {
      return procsPerWorker;
    }
    return "cuda".equals(backend) ? Math.max(1, gpusPerWorker) : 1;
  }

  public boolean isSet() {
    return !file.isEmpty();
  }

  void write(Properties p, String prefix) {
    if (!isSet()) {
      return;
    }
    p.setProperty(prefix + "script", file);
    p.setProperty(prefix + "python", python);
    p.setProperty(prefix + "procs-per-worker", Integer.toString(procsPerWorker));
    if (!pythonEnv.isEmpty()) {
      p.setProperty(prefix + "python-env", pythonEnv);
    }
    if (torchrun) {
      p.setProperty(prefix + "torchrun", "true");
    }
    p.setProperty(prefix + "script-args", Integer.toString(args.size()));
    for (int i = 0; i < args.size(); i++) {
      p.setProperty(prefix + "script-arg." + i, args.get(i));
    }
  }

  /** What {@link #write} wrote; {@link #NONE} where a job file has no script (built-in models). */
  static Script read(Properties p, String prefix) {
    String file = p.getProperty(prefix + "script", "").trim();
    if (file.isEmpty()) {
      return NONE;
    }
    String count = p.getProperty(prefix + "script-args", "0").trim();
    int n;
    try {
      n = Integer.parseInt(count);
    } catch (NumberFormatException e) {
      throw new InvalidInputException(prefix + "script-args", count, "not a count of arguments");
    }
    String[] args = new String[Math.max(0, n)];
    for (int i = 0; i < args.length; i++) {
      String a = p.getProperty(prefix + "script-arg." + i);
      if (a == null) {
        throw new InvalidInputException(prefix + "script-arg." + i, null, "missing: the job file names " + n
            + " script arguments");
      }
      args[i] = a;
    }
    String procs = p.getProperty(prefix + "procs-per-worker", "0").trim();
    try {
      return new Script(file, List.of(args), p.getProperty(prefix + "python", "python3"), Integer.parseInt(procs),
          p.getProperty(prefix + "python-env", ""), Boolean.parseBoolean(p.getProperty(prefix + "torchrun", "false")));
    } catch (NumberFormatException e) {
      throw new InvalidInputException(prefix + "procs-per-worker", procs, "not a count of processes");
    }
  }
}
