package org.edl.worker.runtime;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.edl.thrift.Coordinator;
import org.edl.thrift.JobProgress;
import org.edl.thrift.Registration;
import org.edl.thrift.Topology;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.collective.DataPlane;
import org.edl.worker.collective.Ring;
import org.edl.worker.collective.RingAllReduce;
import org.edl.worker.collective.RingTopology;
import org.edl.worker.coord.CoordinatorClient;
import org.edl.worker.coord.CoordinatorService;
import org.edl.worker.coord.LeaderElection;
import org.edl.worker.data.Dataset;
import org.edl.worker.data.DatasetLoader;
import org.edl.worker.job.InvalidInputException;
import org.edl.worker.model.ModelFactory;
import org.edl.worker.model.TrainableModel;
import org.edl.worker.rpc.RpcServer;
import org.edl.worker.security.RefusalListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker of a data-parallel job, from start-up to a clean exit.
 *
 * <p>Start-up runs on two threads, as the design says: this (main) thread prepares the
 * execution context (data, model) while a background thread starts the data plane and the
 * coordinator server, runs for leadership, finds the leader and registers, then waits for the
 * ring. When both are done the ring is formed and {@link TrainingLoop} runs. At the end the
 * leader waits for every member's last report, writes the model and metrics, and everybody
 * closes its data plane, server and ZooKeeper session.
 */
public final class Worker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Worker.class);
  /** How long one awaitTopology call may block on the leader. */
  private static final int TOPOLOGY_POLL_MS = 5_000;

  /** How a worker's run ended. {@code parameters} are its final parameters (a copy). */
  public record Outcome(String workerId, boolean leader, int rank, int workers, long steps,
      float[] parameters, Optional<ModelOutput.Written> output) {}

  /** What the background start-up thread hands over. */
  private record Membership(Coordinator.Iface leader, boolean selfIsLeader, Topology topology) {}

  private final WorkerConfig config;
  private final Deque<AutoCloseable> resources = new ConcurrentLinkedDeque<>();
  private final ExecutorService startup;
  private final ExecutorService leadershipEvents;
  private final CoordinatorService coordinator;
  private volatile RpcServer rpcServer;
  private volatile DataPlane dataPlane;

  public Worker(WorkerConfig config) {
    this.config = config;
    if (config.spec().output() == null || config.spec().output().isBlank()) {
      throw new InvalidInputException("output", config.spec().output(),
          "no output directory for the model; the client sets it to the job's staging directory");
    }
    this.coordinator = new CoordinatorService(config.spec(), config.ticker());
    this.startup = Executors.newSingleThreadExecutor(r -> thread(r, "edl-join-" + config.workerId()));
    this.leadershipEvents = Executors.newSingleThreadExecutor(r -> thread(r, "edl-leadership-" + config.workerId()));
  }

  /** Connections refused by this worker's coordinator server and data plane so far. */
  public long refusedConnections() {
    RpcServer rpc = rpcServer;
    DataPlane plane = dataPlane;
    return (rpc == null ? 0 : rpc.refusedCount()) + (plane == null ? 0 : plane.refusedCount());
  }

  /** Runs the job to its last step. */
  public Outcome run() throws Exception {
    long started = config.ticker().nanos();
    LOG.info("Worker {} of {} starting: {} workers, model {}, {} steps", config.workerId(),
        config.appId(), config.spec().workers(), config.spec().model(), config.spec().steps());
    Future<Membership> joining = startup.submit(this::joinJob);
    Dataset data;
    TrainableModel model;
    try {
      data = DatasetLoader.load(config.spec().data(), config.spec().format(), config.hadoopConf());
      model = ModelFactory.create(config.spec(), data);
      LOG.info("Execution context ready: {} samples, {} parameters", data.size(), model.parameters().length);
    } catch (Exception | Error e) {
      joining.cancel(true);
      throw e;
    }
    Membership m = awaitMembership(joining);

    RingTopology ringTopology = toRingTopology(m.topology());
    int rank = ringTopology.rankOf(config.workerId());
    LOG.info("Forming ring v{} as rank {} of {}", ringTopology.version(), rank, ringTopology.size());
    Ring ring = Ring.form(dataPlane, ringTopology, config.startupTimeout());
    resources.push(ring);
    RingAllReduce allReduce = new RingAllReduce(ring, config.rpcTimeout());
    resources.push(allReduce);

    ProgressReporter reporter = null;
    if (m.selfIsLeader() && config.amAddress() != null) {
      reporter = new ProgressReporter(config.amAddress(), config.secret(), config.rpcTimeout(), coordinator::progress);
      resources.push(reporter);
      reporter.start(config.progressInterval());
      LOG.info("Reporting progress to the AM at {}", config.amAddress());
    }

    TrainingLoop loop = new TrainingLoop(config.workerId(), config.spec(), data, model, allReduce,
        m.leader()::sync, config.ticker());
    TrainingLoop.Result result = loop.run(0, config.spec().steps());

    Optional<ModelOutput.Written> written = Optional.empty();
    if (m.selfIsLeader()) {
      written = Optional.of(finish(model, result, started, reporter));
    }
    LOG.info("Worker {} done after {} steps", config.workerId(), result.stepsRun());
    return new Outcome(config.workerId(), m.selfIsLeader(), rank, ringTopology.size(),
        result.stepsRun(), model.parameters().clone(), written);
  }

  /** The leader's end of the job: wait for the last reports, then write model and metrics. */
  private ModelOutput.Written finish(TrainableModel model, TrainingLoop.Result result, long started,
      ProgressReporter reporter) throws Exception {
    long lastStep = result.stepsRun() - 1;
    if (!coordinator.awaitStepComplete(lastStep, config.rpcTimeout())) {
      throw new TimeoutException("not every worker reported step " + lastStep + " within " + config.rpcTimeout());
    }
    CoordinatorService.RunSummary s = coordinator.summary().orElseThrow(
        () -> new IllegalStateException("lost leadership before writing the model"));
    double wall = (config.ticker().nanos() - started) / 1e9;
    ModelOutput.Written out = ModelOutput.write(config.spec().output(), model,
        new ModelOutput.Metrics(model.name(), s.workers(), s.steps(), s.firstLoss(), s.lastLoss(),
            s.samplesPerSecond(), wall), config.hadoopConf());
    LOG.info("Model written to {}, metrics to {}; loss {} -> {}", out.model(), out.metrics(),
        s.firstLoss(), s.lastLoss());
    if (reporter != null) {
      JobProgress last = coordinator.progress().orElseThrow();
      last.setModelPath(out.model().toString());
      last.setMetricsPath(out.metrics().toString());
      reporter.reportNow(last);
    }
    return out;
  }

  /** The background start-up thread: data plane, coordinator server, election, registration. */
  private Membership joinJob() throws Exception {
    long deadline = System.nanoTime() + config.startupTimeout().toNanos();
    RefusalListener refusals = (peer, cause) ->
        LOG.warn("Worker {} refused a connection from {}: {}", config.workerId(), peer, cause.getMessage());
    dataPlane = DataPlane.start(config.workerId(), config.host(), 0, config.secret(), config.rpcTimeout(), refusals);
    resources.push(dataPlane);
    rpcServer = RpcServer.start("coordinator", new Coordinator.Processor<>(coordinator), config.host(), 0,
        config.secret(), config.rpcTimeout(), refusals);
    resources.push(rpcServer);

    CuratorFramework curator = CuratorFrameworkFactory.newClient(config.zkConnect(),
        new ExponentialBackoffRetry(200, 10));
    resources.push(curator);
    curator.start();
    if (!curator.blockUntilConnected((int) left(deadline), TimeUnit.MILLISECONDS)) {
      throw new TimeoutException("ZooKeeper at " + config.zkConnect() + " not reachable within " + config.startupTimeout());
    }
    String selfAddress = config.host() + ":" + rpcServer.port();
    LeaderElection election = new LeaderElection(curator, config.appId(), selfAddress, leadershipEvents);
    election.addListener(new LeaderElection.Listener() {
      @Override
      public void isLeader() {
        coordinator.lead();
      }

      @Override
      public void notLeader() {
        coordinator.stepDown();
      }
    });
    resources.push(election);
    election.start();

    WorkerInfo self = new WorkerInfo(config.workerId(), config.host(), dataPlane.port());
    long backoffMs = 50;
    while (true) {
      String leaderAddress = election.currentLeaderAddress(Duration.ofMillis(left(deadline)));
      boolean selfIsLeader = leaderAddress.equals(selfAddress);
      Coordinator.Iface leader = selfIsLeader ? coordinator
          : CoordinatorClient.connect(leaderAddress, config.secret(), config.rpcTimeout());
      try {
        Registration reg = leader.registerWorker(self);
        LOG.info("Registered with the leader at {}{}", leaderAddress, selfIsLeader ? " (this worker)" : "");
        if (leader instanceof CoordinatorClient c) {
          resources.push(c);
        }
        return new Membership(leader, selfIsLeader, awaitRing(leader, reg.getTopology(), deadline));
      } catch (Exception e) {
        if (leader instanceof CoordinatorClient c) {
          c.close();
        }
        // Elected but not yet serving: its listener has not run yet. Anything else is fatal.
        if (!CoordinatorClient.isNotLeader(e) || left(deadline) <= 0) {
          throw e;
        }
        Thread.sleep(backoffMs);
        backoffMs = Math.min(1_000, backoffMs * 2);
      }
    }
  }

  private Topology awaitRing(Coordinator.Iface leader, Topology topology, long deadline) throws Exception {
    Topology t = topology;
    while (!contains(t, config.workerId())) {
      if (left(deadline) <= 0) {
        throw new TimeoutException("the ring did not form within " + config.startupTimeout() + ": "
            + t.getRingSize() + " of " + config.spec().workers() + " workers in topology v" + t.getVersion());
      }
      t = leader.awaitTopology(t.getVersion(), (int) Math.min(TOPOLOGY_POLL_MS, left(deadline)));
    }
    LOG.info("Topology v{} with {} workers", t.getVersion(), t.getRingSize());
    return t;
  }

  private Membership awaitMembership(Future<Membership> joining) throws Exception {
    try {
      return joining.get(config.startupTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof Exception ex) {
        throw ex;
      }
      throw e;
    } catch (TimeoutException e) {
      joining.cancel(true);
      throw new TimeoutException("joining the job took longer than " + config.startupTimeout());
    }
  }

  private static boolean contains(Topology t, String workerId) {
    return t.getRing().stream().anyMatch(w -> w.getWorkerId().equals(workerId));
  }

  private static RingTopology toRingTopology(Topology t) {
    List<RingTopology.Member> members = t.getRing().stream()
        .map(w -> new RingTopology.Member(w.getWorkerId(), w.getHost(), w.getDataPort())).toList();
    return new RingTopology(t.getVersion(), members);
  }

  private static long left(long deadlineNanos) {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
  }

  private static Thread thread(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** Closes everything this worker opened, newest first. */
  @Override
  public void close() {
    startup.shutdownNow();
    while (!resources.isEmpty()) {
      AutoCloseable r = resources.pop();
      try {
        r.close();
      } catch (Exception e) {
        LOG.warn("Closing {} failed: {}", r.getClass().getSimpleName(), e.toString());
      }
    }
    leadershipEvents.shutdownNow();
  }
}
