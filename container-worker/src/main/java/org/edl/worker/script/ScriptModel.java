package org.edl.worker.script;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.edl.job.JobSecret;
import org.edl.job.Training;
import org.edl.job.rpc.RefusalListener;
import org.edl.job.rpc.RpcServer;
import org.edl.thrift.ScriptAction;
import org.edl.thrift.ScriptChannel;
import org.edl.thrift.ScriptGroup;
import org.edl.thrift.ScriptHello;
import org.edl.thrift.ScriptOrder;
import org.edl.worker.collective.RingTopology;
import org.edl.worker.data.Dataset;
import org.edl.worker.model.IncompatibleStateException;
import org.edl.worker.model.RingAware;
import org.edl.worker.model.StartsOverItself;
import org.edl.worker.model.StepAware;
import org.edl.worker.model.TrainableModel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A user's PyTorch script as the worker's model. The script computes and all-reduces its
 * gradients in its own torch.distributed group and steps its own optimizer; this side tells it,
 * step by step, which samples to train (the leader's assignment, as for the built-in models), when
 * the ring changed (it joins the new ring's group before its next step), and when to save or load
 * its state for a checkpoint. The runtime's own all-reduce moves one float per step, a barrier that
 * keeps the members' steps together; its broadcast to newcomers moves that float and the job
 * position, while the script's group sends newcomers the model and optimizer state.
 */
public final class ScriptModel
    implements TrainableModel, RingAware, StepAware, StartsOverItself, ServesRendezvous, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ScriptModel.class);
  /** Where the script binds its rendezvous store (the ring's address; loopback when unset). */
  public static final String STORE_HOST_ENV = "EDL_SCRIPT_STORE_HOST";
  /**
   * The largest message on the script's channel: a step's report is small, but a checkpoint's or
   * the model's state (a ResNet-18 with its optimizer: 90 MB) goes through it whole, into the
   * worker's heap, so the worker needs that much memory beside its own.
   */
  static final int MAX_MESSAGE_BYTES = Integer.MAX_VALUE - 1024;
  /** How long a script's process may run before it calls edl.init(): interpreter, torch import, data. */
  static final Duration HELLO_TIMEOUT = Duration.ofMinutes(5);

  /**
   * Which of its worker's script processes this is: {@code rank} of {@code size}, on the CUDA
   * device {@code cudaDevice} (-1: the CPU, or the script's own choice).
   */
  public record Local(int rank, int size, int cudaDevice) {
    /** A worker's only process. */
    public static final Local ALONE = new Local(0, 1, -1);

    public Local {
      if (size < 1 || rank < 0 || rank >= size) {
        throw new IllegalArgumentException("process " + rank + " of " + size);
      }
    }
  }

  private final String name;
  private final Local local;
  private final Training training;
  private final ScriptChannelService channel;
  private final RpcServer server;
  private final ScriptProcess process;
  private final ScriptLiveness liveness;
  private final int storePort;
  private final long datasetSize;
  private final float[] token = new float[1];
  private ScriptGroup pendingGroup;
  private int ringSize = 1;
  /** The job's step the next STEP order trains (the training loop says; counted on where it does not). */
  private long step;
  /** The last step's computing time as the script measured it; NaN before one. */
  private double computeSeconds = Double.NaN;

  private ScriptModel(String name, Local local, Training training, ScriptChannelService channel, RpcServer server,
      ScriptProcess process, ScriptLiveness liveness, int storePort, long datasetSize) {
    this.name = name;
    this.local = local;
    this.training = training;
    this.channel = channel;
    this.server = server;
    this.process = process;
    this.liveness = liveness;
    this.storePort = storePort;
    this.datasetSize = datasetSize;
  }

  /**
   * Starts {@code python script args...} in {@code dir} with the edl package on its path, serves
   * it the channel behind the job's secret, and waits for its edl.init().
   *
   * @param backend   "gloo" or "nccl"
   * @param extraEnv  more of the script's environment (where its data was copied)
   */
  public static ScriptModel start(String python, Path script, List<String> args, Path dir, JobSecret secret,
      String workerId, Training training, String backend, Map<String, String> extraEnv)
      throws Exception {
    return start(python, script, args, dir, secret, workerId, training, backend, extraEnv, Local.ALONE);
  }

  /**
   * As {@link #start(String, Path, List, Path, JobSecret, String, Training, String, Map)}, as process
   * {@code local} of its worker's; the first writes the package and the secret file the others
   * (started once it has said hello) use too.
   */
  public static ScriptModel start(String python, Path script, List<String> args, Path dir, JobSecret secret,
      String workerId, Training training, String backend, Map<String, String> extraEnv, Local local)
      throws Exception {
    Path packageDir = dir.resolve("edl-python");
    Path secretFile = dir.resolve("edl-script.secret");
    if (local.rank() == 0) {
      PythonPackage.writeTo(packageDir);
      Files.deleteIfExists(secretFile);
      Files.createFile(secretFile, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.write(secretFile, secret.bytes());
    }
    ScriptChannelService channel = new ScriptChannelService(new ScriptHello(workerId, training.seed(),
        training.batchSize(), backend));
    // The script's orders and its signs of life, each on a connection of its own, and one spare.
    RpcServer server = RpcServer.start("script", new ScriptChannel.Processor<>(channel), "127.0.0.1", 0, secret,
        RpcServer.HANDSHAKE_TIMEOUT, 3, RefusalListener.NONE, MAX_MESSAGE_BYTES);
    List<String> command = new ArrayList<>(List.of(python, "-u", script.toString()));
    command.addAll(args);
    String path = packageDir.toString();
    String inherited = System.getenv("PYTHONPATH");
    Map<String, String> env = new java.util.HashMap<>(extraEnv);
    env.put("PYTHONPATH", inherited == null || inherited.isEmpty() ? path : path + ":" + inherited);
    env.put("EDL_SCRIPT_PORT", Integer.toString(server.port()));
    env.put("EDL_SCRIPT_SECRET_FILE", secretFile.toString());
    env.put("EDL_LOCAL_RANK", Integer.toString(local.rank()));
    env.put("EDL_LOCAL_WORLD_SIZE", Integer.toString(local.size()));
    if (local.cudaDevice() >= 0) {
      env.put("EDL_CUDA_DEVICE", Integer.toString(local.cudaDevice()));
    }
    ScriptProcess process;
    try {
      process = ScriptProcess.start(command, dir, env, channel::exited);
    } catch (IOException e) {
      server.close();
      throw new ScriptFailedException("cannot start " + python + " " + script + ": " + e.getMessage());
    }
    ScriptProcess started = process;
    ScriptLiveness liveness = new ScriptLiveness(System::nanoTime, ScriptLiveness.TIMEOUT, () -> {
      channel.fail("the script gave no sign of life for " + ScriptLiveness.TIMEOUT.toSeconds() + " s: it is paused"
          + " (SIGSTOP, a debugger) or stuck in native code that holds Python's lock; its worker killed it (pid "
          + started.pid() + ")");
      started.close();
    });
    channel.signsOfLifeTo(liveness::sign);
    try {
      ScriptChannelService.Announced hello = channel.awaitHello(HELLO_TIMEOUT.toMillis());
      String name = "script:" + script.getFileName();
      return new ScriptModel(name, local, training, channel, server, process,
          liveness.watch(local.size() == 1 ? workerId : workerId + " process " + local.rank()), hello.storePort(),
          hello.datasetSize());
    } catch (Exception e) {
      process.close();
      server.close();
      throw e;
    }
  }

  /** The samples the script indexes: the leader assigns each step's among them. */
  public Dataset dataset() {
    if (datasetSize > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("dataset_size " + datasetSize + " is larger than " + Integer.MAX_VALUE);
    }
    int n = (int) datasetSize;
    return new Dataset(new float[n], new int[n], 1, 1);
  }

  /** How many samples the script said it indexes. */
  long datasetSize() {
    return datasetSize;
  }

  /** Whether the script's thread has begun its signs of life (tests pause it only then). */
  boolean givesSignsOfLife() {
    return liveness.heard();
  }

  /** The script's process id. */
  public long pid() {
    return process.pid();
  }

  /**
   * Where this worker's script serves its rendezvous store (the ring's first member's gathers a
   * group): the script bound it before its hello, and the worker registers it.
   */
  @Override
  public int storePort() {
    return storePort;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public float[] parameters() {
    return token;
  }

  @Override
  public void stepStarting(long jobStep) {
    step = jobStep;
  }

  @Override
  public void upcoming(org.edl.worker.data.UpcomingBatches batches) {
    channel.upcoming(batches.part(local.rank(), local.size()));
  }

  @Override
  public double computeSeconds() {
    return computeSeconds;
  }

  @Override
  public void ringFormed(RingTopology ring, int rank) {
    RingTopology.Member first = ring.member(0);
    // Every process of every worker, workers in ring order; the group gathers at the store of the
    // ring's first worker's first process (the port that worker registered).
    pendingGroup = new ScriptGroup(ring.version(), rank * local.size() + local.rank(), ring.size() * local.size(),
        first.host(), first.scriptPort());
    pendingGroup.setLocalRank(local.rank());
    pendingGroup.setLocalSize(local.size());
    ringSize = ring.size();
  }

  @Override
  public double accumulateGradients(Dataset data, int[] samples, int from, int to, float[] gradSum) {
    try {
      if (pendingGroup != null) {
        if (pendingGroup.getStorePort() <= 0) {
          throw new ScriptFailedException("the ring's first member runs no script (no rendezvous store)");
        }
        ScriptOrder form = new ScriptOrder(ScriptAction.FORM_GROUP);
        form.setGroup(pendingGroup);
        pendingGroup = null;
        lostMember(channel.exchange(form, ScriptChannelService.NO_TIMEOUT));
      }
      ScriptOrder order = new ScriptOrder(ScriptAction.STEP);
      order.setStep(step++);
      // This process's contiguous part of its worker's share (the whole of it for a worker's only one).
      int n = to - from;
      int a = from + (int) ((long) n * local.rank() / local.size());
      int b = from + (int) ((long) n * (local.rank() + 1) / local.size());
      List<Integer> mine = new ArrayList<>(b - a);
      for (int i = a; i < b; i++) {
        mine.add(samples[i]);
      }
      order.setSamples(mine);
      order.setGlobalBatch(training.globalBatchFor(ringSize));
      order.setLearningRate(training.learningRateFor(ringSize));
      order.setLearningRateScale(training.learningRateScaleFor(ringSize));
      org.edl.thrift.ScriptReport report = lostMember(channel.exchange(order, ScriptChannelService.NO_TIMEOUT));
      computeSeconds = report.isSetComputeSeconds() ? report.getComputeSeconds() : Double.NaN;
      return report.getLossSum();
    } catch (ScriptFailedException e) {
      throw new IllegalStateException(e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the script trained", e);
    }
  }

  /**
   * A member of the script's group is gone: like a failed all-reduce, this step was not applied
   * and the worker's training loop recovers the ring (which orders a new group).
   */
  private static org.edl.thrift.ScriptReport lostMember(org.edl.thrift.ScriptReport r) {
    if (r.isSetLost()) {
      throw new UncheckedIOException(new IOException("the script's process group lost a member: " + r.getLost()));
    }
    return r;
  }

  /** The script stepped its own optimizer with its group's averaged gradient. */
  @Override
  public void applyGradients(float[] averagedGradient, float learningRate) {
  }

  @Override
  public void writeState(DataOutputStream out) throws IOException {
    byte[] state = exchangeState(new ScriptOrder(ScriptAction.SAVE_STATE)).getState();
    out.writeUTF(name);
    out.writeInt(state.length);
    out.write(state);
  }

  @Override
  public void readState(DataInputStream in) throws IOException {
    load(readOwnState(in));
  }

  /** Hands the script {@code state}, as {@link #writeState} took it from a script of the same job. */
  void load(byte[] state) throws IOException {
    ScriptOrder load = new ScriptOrder(ScriptAction.LOAD_STATE);
    load.setState(state);
    exchangeState(load);
  }

  /** Checks that {@link #readState} would take what {@code in} holds; returns the state's bytes. */
  byte[] readOwnState(DataInputStream in) throws IOException {
    String saved = in.readUTF();
    if (!saved.equals(name)) {
      throw new IncompatibleStateException("state of " + saved + " does not fit " + name);
    }
    byte[] state = new byte[in.readInt()];
    in.readFully(state);
    return state;
  }

  /** Back to the state the script was attached with: the job's start, taken from one member at the next group. */
  @Override
  public void startOver() throws IOException {
    ScriptOrder load = new ScriptOrder(ScriptAction.LOAD_STATE);
    load.setState(ByteBuffer.allocate(0));
    exchangeState(load);
  }

  private org.edl.thrift.ScriptReport exchangeState(ScriptOrder order) throws IOException {
    try {
      return channel.exchange(order, ScriptChannelService.NO_TIMEOUT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while the script handled " + order.getAction());
    }
  }

  /** This member's part is over: the script's loop ends, and it has a minute to exit. */
  @Override
  public void close() {
    try {
      channel.exchange(new ScriptOrder(ScriptAction.FINISH), 10_000);
      process.awaitOrKill(60_000);
    } catch (ScriptFailedException e) {
      LOG.debug("script already ended: {}", e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      liveness.close();
      channel.fail("the worker closed the script");
      process.close();
      server.close();
    }
  }

  @Override
  public String toString() {
    return name + " (pid " + process.pid() + ", " + datasetSize + " samples)";
  }
}
