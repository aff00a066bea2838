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
public final class ScriptModel implements TrainableModel, RingAware, StepAware, StartsOverItself, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ScriptModel.class);
  /** Where the script binds its rendezvous store (the ring's address; loopback when unset). */
  public static final String STORE_HOST_ENV = "EDL_SCRIPT_STORE_HOST";
  /** How long a script's process may run before it calls edl.init(): interpreter, torch import, data. */
  static final Duration HELLO_TIMEOUT = Duration.ofMinutes(5);

  private final String name;
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

  private ScriptModel(String name, Training training, ScriptChannelService channel, RpcServer server,
      ScriptProcess process, ScriptLiveness liveness, int storePort, long datasetSize) {
    this.name = name;
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
    Path packageDir = dir.resolve("edl-python");
    PythonPackage.writeTo(packageDir);
    Path secretFile = dir.resolve("edl-script.secret");
    Files.deleteIfExists(secretFile);
    Files.createFile(secretFile, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.write(secretFile, secret.bytes());
    ScriptChannelService channel = new ScriptChannelService(new ScriptHello(workerId, training.seed(),
        training.batchSize(), backend));
    // The script's orders and its signs of life, each on a connection of its own, and one spare.
    RpcServer server = RpcServer.start("script", new ScriptChannel.Processor<>(channel), "127.0.0.1", 0, secret,
        RpcServer.HANDSHAKE_TIMEOUT, 3, RefusalListener.NONE);
    List<String> command = new ArrayList<>(List.of(python, "-u", script.toString()));
    command.addAll(args);
    String path = packageDir.toString();
    String inherited = System.getenv("PYTHONPATH");
    Map<String, String> env = new java.util.HashMap<>(extraEnv);
    env.put("PYTHONPATH", inherited == null || inherited.isEmpty() ? path : path + ":" + inherited);
    env.put("EDL_SCRIPT_PORT", Integer.toString(server.port()));
    env.put("EDL_SCRIPT_SECRET_FILE", secretFile.toString());
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
      return new ScriptModel(name, training, channel, server, process, liveness.watch(workerId), hello.storePort(),
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
    channel.upcoming(batches);
  }

  @Override
  public double computeSeconds() {
    return computeSeconds;
  }

  @Override
  public void ringFormed(RingTopology ring, int rank) {
    RingTopology.Member first = ring.member(0);
    pendingGroup = new ScriptGroup(ring.version(), rank, ring.size(), first.host(), first.scriptPort());
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
      List<Integer> mine = new ArrayList<>(to - from);
      for (int i = from; i < to; i++) {
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
    String saved = in.readUTF();
    if (!saved.equals(name)) {
      throw new IncompatibleStateException("state of " + saved + " does not fit " + name);
    }
    byte[] state = new byte[in.readInt()];
    in.readFully(state);
    ScriptOrder load = new ScriptOrder(ScriptAction.LOAD_STATE);
    load.setState(state);
    exchangeState(load);
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
