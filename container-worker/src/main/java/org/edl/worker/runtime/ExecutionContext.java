package org.edl.worker.runtime;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.edl.job.Script;
import org.edl.worker.cuda.CudaBackend;
import org.edl.worker.data.Dataset;
import org.edl.worker.emulated.EmulatedModel;
import org.edl.worker.emulated.EmulatedModels;
import org.edl.worker.data.DatasetCache;
import org.edl.worker.data.NodeDatasetCopy;
import org.edl.worker.data.DatasetLoader;
import org.edl.worker.model.ModelFactory;
import org.edl.worker.model.TrainableModel;
import org.edl.worker.script.ScriptData;
import org.edl.worker.script.ScriptModel;
import org.edl.worker.script.ScriptProcesses;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the main thread prepares while the background thread joins the job: data and model, and
 * where it can, how to build the model's starting parameters again ({@code startingParameters},
 * null if it cannot). Consistent recovery before the first checkpoint goes back to them; building
 * them again from the seed when that happens costs a worker nothing at start, where a copy would
 * cost it the model's size in memory and, for a large model, most of a second before it is ready.
 */
public record ExecutionContext(Dataset data, TrainableModel model, Supplier<float[]> startingParameters) {
  private static final Logger LOG = LoggerFactory.getLogger(ExecutionContext.class);

  /** A context whose starting parameters are not known but as the model holds them now. */
  public ExecutionContext(Dataset data, TrainableModel model) {
    this(data, model, null);
  }

  /** Prepares a worker's context; injected so that a test can watch or gate preparation. */
  @FunctionalInterface
  public interface Factory {
    ExecutionContext prepare(WorkerConfig config) throws Exception;
  }

  /** Starts a worker's script process {@code localRank}. */
  @FunctionalInterface
  public interface ScriptStarter {
    ScriptModel start(int localRank) throws Exception;
  }

  /**
   * A script job's context with {@code n} processes of its script, started one after the other (the
   * first writes the package the others then import); one is the model itself, several are one
   * {@link ScriptProcesses}.
   */
  public static ExecutionContext scripts(int n, ScriptStarter starter) throws Exception {
    List<ScriptModel> started = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        started.add(starter.start(i));
      }
    } catch (Exception e) {
      started.forEach(ScriptModel::close);
      throw e;
    }
    if (n == 1) {
      return new ExecutionContext(started.get(0).dataset(), started.get(0));
    }
    ScriptProcesses processes = new ScriptProcesses(started);
    return new ExecutionContext(processes.dataset(), processes);
  }

  /**
   * Loads the job's data set and creates its model from the job specification: a built-in model
   * on the cpu backend or, on the cuda backend, with its matrix products on the worker's GPU; or the emulated stand-in for a profiled model (the data set then only
   * gives the sample order).
   */
  public static final Factory FROM_SPEC = config -> {
    Script script = config.spec().script();
    if (script.isSet()) {
      Path dir = Path.of("").toAbsolutePath();
      java.util.Map<String, String> env = new java.util.HashMap<>();
      ScriptData.fetch(config.spec().data().source(), dir, config.hadoopConf())
          .ifPresent(local -> env.put(ScriptData.ENV, local.toString()));
      // The script's rendezvous store listens on the ring's address only, where the others dial it.
      env.put(ScriptModel.STORE_HOST_ENV, config.host());
      String backend = config.spec().training().backend();
      int n = script.processes(backend, config.spec().resources().gpusPerWorker());
      List<Integer> devices = config.gpus().cudaOrdinals();
      return scripts(n, i -> ScriptModel.start(script.python(), dir.resolve(script.file()), script.args(), dir,
          config.secret(), config.workerId(), config.spec().training(), "cuda".equals(backend) ? "nccl" : "gloo",
          env, new ScriptModel.Local(i, n, i < devices.size() ? devices.get(i) : -1)));
    }
    // One knob for both copies of the parsed data set: the job's on HDFS and each node's.
    java.util.Optional<DatasetCache> cache = DatasetCache.in(config.spec().data().cacheDir(), config.hadoopConf());
    Dataset data = DatasetLoader.load(config.spec().data().source(), config.spec().data().format(), cache,
        cache.flatMap(c -> NodeDatasetCopy.fromEnvironment(System.getenv())), config.hadoopConf());
    if ("emulated".equals(config.spec().training().backend())) {
      EmulatedModel model = EmulatedModels.create(config.spec(), config.profilesDir(), EmulatedModel.Sleeper.PARK);
      LOG.warn("EMULATED backend: {} has the real size ({} parameters) but no real compute; batch times"
          + " come from the measured profile in {}", model.name(), model.parameters().length,
          EmulatedModels.sourceOf(config.profilesDir(), config.spec().training().model()));
      if (model.profileSync()) {
        LOG.warn("EMULATED gradient transfer (--emulated-sync profile): each step waits the profile's sync"
            + " time and the all-reduce moves {} floats, not {}; the broadcast to newcomers moves the real size",
            model.gradientLength(), model.parameters().length);
      }
      return new ExecutionContext(data, model, model::startingParameters);
    }
    if ("cuda".equals(config.spec().training().backend())) {
      return new ExecutionContext(data, CudaBackend.on(ModelFactory.create(config.spec(), data),
          config.gpus(), java.net.InetAddress.getLocalHost().getHostName()),
          () -> ModelFactory.create(config.spec(), data).parameters());
    }
    return new ExecutionContext(data, ModelFactory.create(config.spec(), data),
        () -> ModelFactory.create(config.spec(), data).parameters());
  };
}
