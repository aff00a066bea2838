package org.edl.worker.runtime;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.edl.job.AmAddressRecord;
import org.edl.job.HostPort;
import org.edl.job.InvalidInputException;
import org.edl.job.JobZooKeeperAcl;
import org.edl.job.ModelOutput;
import org.edl.job.rpc.RefusalListener;
import org.edl.job.rpc.RpcServer;
import org.edl.thrift.Coordinator;
import org.edl.thrift.Registration;
import org.edl.thrift.SwitchOrder;
import org.edl.thrift.Topology;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.checkpoint.Checkpoint;
import org.edl.worker.checkpoint.CheckpointMeta;
import org.edl.worker.checkpoint.CheckpointSchedule;
import org.edl.worker.collective.DataPlane;
import org.edl.worker.collective.GradientLoops;
import org.edl.worker.collective.ModelBroadcast;
import org.edl.worker.collective.Ring;
import org.edl.worker.coord.CheckpointRef;
import org.edl.worker.coord.JobRecord;
import org.edl.worker.coord.Leadership;
import org.edl.worker.coord.rpc.CoordinatorService;
import org.edl.worker.coord.rpc.Wire;
import org.edl.worker.coord.zk.LeaderElection;
import org.edl.worker.coord.zk.LeaderFinder;
import org.edl.worker.coord.zk.MemberPresence;
import org.edl.worker.coord.zk.ZooKeeperLeaderStore;
import org.edl.worker.data.Dataset;
import org.edl.worker.model.TrainableModel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker of a data-parallel job, from start-up to a clean exit.
 *
 * <p>Start-up runs on two threads, as the design says: this (main) thread prepares the
 * execution context (data, model) while a background thread starts the data plane and the
 * coordinator server, finds the leader and registers. A worker of the first ring (the job has
 * no leader record yet) runs for leadership at once, waits for that ring and trains from step
 * 0. A worker started while the job runs is a newcomer: the leader hands it the pending
 * topology; it reports ready once its context is prepared, waits for the switch order, forms
 * the new ring and receives the model and the job position from the order's broadcaster, then
 * trains from the next step. Only ring members run for leadership: a newcomer becomes a
 * candidate once it trains. {@link ElasticMembership} carries the worker through later
 * switches, failures and the end, where the leader writes the model and every member waits for
 * that before it exits.
 *
 * <p>Stop-resume: a stop for a restart ends every worker's run after the stop step
 * ({@link Ending#STOPPED}), the leader's after it wrote the checkpoint. A worker configured to
 * restore ({@link WorkerConfig#restoreFrom()}) reads the checkpoint before it joins, loads its
 * parameters on the main thread with the rest of the execution context, and, when its
 * coordinator leads the first ring, starts the job at the checkpoint's step and sample cursor.
 */
public final class Worker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Worker.class);
  /** How long one long-poll call may block on the leader. */
  static final int POLL_MS = 5_000;

  /** How a worker's run ended. */
  public enum Ending {
    /** Trained to the job's last step. */
    FINISHED,
    /** Left the job at a scheduled step (graceful scale-in). */
    LEFT,
    /** Stopped after a scheduled step for a restart (stop-resume); the leader wrote a checkpoint. */
    STOPPED
  }

  /**
   * How a worker's run ended. {@code parameters} are its final parameters (a copy); rank and
   * workers describe its last ring; {@code firstStep} is the step it started at (0, or the step
   * after the switch it joined at); {@code switches} the topology switches it lived through;
   * {@code stop} how it stopped for a restart (with the checkpoint the leader wrote);
   * {@code samplesSeen} the samples the job's completed steps trained, as the leader that wrote
   * the model counted them (-1 on the other workers).
   */
  public record Outcome(String workerId, boolean leader, int rank, int workers, long steps,
      float[] parameters, Optional<ModelOutput.Written> output, Ending ending, long firstStep,
      long nextStep, List<SwitchRecord> switches, Optional<StopRecord> stop, long samplesSeen) {

    public boolean left() {
      return ending == Ending.LEFT;
    }
  }

  /** What the background start-up thread hands over. */
  private record Membership(LeaderConnection leader, Registration registration, Topology topology) {}

  private final WorkerConfig config;
  private final ExecutionContext.Factory contextFactory;
  private final WorkerListener listener;
  private final Deque<AutoCloseable> resources = new ConcurrentLinkedDeque<>();
  private final ExecutorService startup;
  private final ExecutorService leadershipEvents;
  private final CoordinatorService coordinator;
  /** The coordinator's leadership, which the runtime asks directly (the service is its Thrift face). */
  private final Leadership leadership;
  private volatile RpcServer rpcServer;
  private volatile DataPlane dataPlane;
  private volatile LeaderElection election;
  private volatile LeaderConnection leader;
  private volatile LeaderFinder finder;
  private volatile String selfAddress;
  private volatile ProgressReporter reporter;
  private volatile HeartbeatSender heartbeat;
  /** The job's ZooKeeper client, once joinJob connected it. */
  private volatile CuratorFramework zk;
  private volatile ZooKeeperLeaderStore store;
  private final WorkerStorage storage;
  /** The thread running {@link #run}, interrupted when the worker is fenced while it waits on ZooKeeper. */
  private volatile Thread runner;
  /** Where this worker is as a member: joining, in a ring, fenced, done. */
  private final MemberLifecycle phases;
  private volatile ElasticMembership current;
  private final ScriptStorePort scriptStorePort = new ScriptStorePort();

  public Worker(WorkerConfig config) {
    this(config, ExecutionContext.FROM_SPEC, WorkerListener.NONE);
  }

  public Worker(WorkerConfig config, ExecutionContext.Factory contextFactory, WorkerListener listener) {
    this.config = config;
    this.contextFactory = contextFactory;
    this.listener = listener;
    if (config.spec().output() == null || config.spec().output().isBlank()) {
      throw new InvalidInputException("output", config.spec().output(),
          "no output directory for the model; the client sets it to the job's staging directory");
    }
    this.coordinator = new CoordinatorService(config.spec(), config.ticker(), config.switchAllowance(),
        config.workerId());
    this.leadership = coordinator.leadership();
    this.phases = new MemberLifecycle(config.workerId());
    this.storage = new WorkerStorage(config, leadership, listener, () -> reporter);
    leadership.checkpointCheck(storage::usableCheckpoint);
    this.startup = Executors.newSingleThreadExecutor(r -> thread(r, "edl-join-" + config.workerId()));
    this.leadershipEvents = Executors.newSingleThreadExecutor(r -> thread(r, "edl-leadership-" + config.workerId()));
    // A coordinator that will never lead again gives up its place in the election at once.
    leadership.lifecycle().addListener((from, to) -> {
      if (to.isFinal()) {
        closeElection();
      }
    }, leadershipEvents);
  }

  /** Whether this worker's coordinator leads the job now. */
  public boolean isLeading() {
    return leadership.isLeading();
  }

  /** The leader epoch this worker's coordinator leads (or led) under; 0 if it never led. */
  public long leaderEpoch() {
    return leadership.leaderEpoch();
  }

  /**
   * Asks the leader to let this worker leave at a future step (graceful scale-in from inside
   * the worker). The worker's {@link #run} returns with {@link Ending#LEFT} at that step.
   */
  public SwitchOrder leave() throws Exception {
    LeaderConnection l = leader;
    if (l == null) {
      throw new IllegalStateException(config.workerId() + " has not joined the job yet");
    }
    return l.call(c -> c.leave(config.workerId()));
  }

  /** Runs the job until its last step (and its output is written), or until this worker leaves. */
  public Outcome run() throws Exception {
    runner = Thread.currentThread();
    try {
      return runJob();
    } catch (Exception e) {
      String why = phases.fencedBecause();
      if (why != null && !(e instanceof FencedException)) {
        throw new FencedException(config.workerId() + " " + org.edl.worker.coord.CoordinatorState.FENCED + ": " + why, e);
      }
      throw e;
    } finally {
      runner = null;
    }
  }

  private Outcome runJob() throws Exception {
    long started = config.ticker().nanos();
    LOG.info("Worker {} of {} starting: model {}, {} steps", config.workerId(), config.appId(),
        config.spec().training().model(), config.spec().training().steps());
    Optional<Checkpoint> restore = storage.readRestore();
    restore.ifPresent(c -> leadership.startFrom(new CheckpointRef(c.path().toString(), c.meta().toPosition()),
        config.spec().scale().workers()));
    Future<Membership> joining = startup.submit(this::joinJob);
    ExecutionContext context;
    try {
      context = contextFactory.prepare(config);
      if (context.model() instanceof AutoCloseable child) {
        resources.push(child); // a script's process: it ends when the worker does
      }
      scriptStorePort.modelReady(context.model(), config.spec().script().isSet());
      LOG.info("Execution context ready: {} samples, {} parameters", context.data().size(),
          context.model().parameters().length);
      if (!config.spec().script().isSet()) {
        // What a broadcast to joiners moves; a script's group moves its own model.
        leadership.modelFloats(context.model().parameters().length);
      }
      if (restore.isPresent()) {
        storage.restore(restore.get(), context);
      }
    } catch (Exception | Error e) {
      joining.cancel(true);
      throw e;
    }
    TrainableModel model = context.model();
    storage.keepInitialState(context, restore.isPresent());
    // Zeroed while the start-up thread registers. A newcomer has it before it says ready: while a
    // thread zeroes a large array no other thread gets past a garbage collection, and after
    // ready every member may soon be waiting for this one.
    CompletableFuture<float[]> gradientBuffer = CompletableFuture.supplyAsync(() -> new float[model.gradientLength()]);
    // While the buffer is zeroed and the start-up thread registers: compiled before the first
    // all-reduce, whose pace a newcomer's cold loops set for the whole ring.
    GradientLoops.warmUp();
    Membership m = awaitMembership(joining);
    float[] gradient;
    try {
      gradient = gradientBuffer.join();
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof Error err) {
        throw err; // out of memory for the buffer: as if allocated here
      }
      throw e;
    }

    ElasticMembership membership;
    ModelBroadcast.Position from;
    if (m.registration().isPending()) {
      NewcomerJoin.Joined j = new NewcomerJoin(config, listener, dataPlane, startup)
          .join(m.leader(), m.topology().getVersion(), model, membershipFor(model, context.data(), started));
      membership = j.membership();
      from = j.from();
    } else {
      from = storage.firstRingStart(m.registration().getMeta(), restore);
      Ring ring = Ring.form(dataPlane, ElasticMembership.toRingTopology(m.topology()), config.startupTimeout());
      LOG.info("Formed ring v{} as rank {} of {} ({})", ring.version(), ring.rank(), ring.size(), ring.transport());
      membership = membership(model, TrainingRing.connected(ring, config.rpcTimeout()), context.data(), started);
    }
    if (m.registration().isPending()) {
      joinElectionBeside();
    } else {
      joinElection();
    }
    startReportingIfLeading();
    startHeartbeat(membership);

    TrainingLoop loop = new TrainingLoop(config.workerId(), config.spec(), context.data(), model,
        membership, config.ticker(), listener, membership, membership);
    TrainingLoop.Result result;
    try {
      result = loop.run(from, config.spec().training().steps(), membership.allReduce(), gradient);
    } catch (FencedException e) {
      // The job went on without this worker: let go of its ring at once, not when it is closed.
      membership.close();
      throw e;
    }
    // A periodic checkpoint still being written is committed while this worker still leads.
    membership.finishRecords();
    // Its run is over: were it elected now (the last leader closing), there is no job to take over.
    leadership.retire();

    Optional<StopRecord> stop = membership.stopped();
    Optional<ModelOutput.Written> out = storage.written();
    TrainingRing last = membership.ring();
    int rank = last == null ? -1 : last.rank();
    int workers = last == null ? stop.map(StopRecord::workers).orElse(0) : last.size();
    Ending ending = membership.left() ? Ending.LEFT : stop.isPresent() ? Ending.STOPPED : Ending.FINISHED;
    LOG.info("Worker {} {} after {} steps", config.workerId(), ending.name().toLowerCase(Locale.ROOT),
        result.stepsRun());
    // The leader at the end: it wrote the model, or the checkpoint of a stop.
    boolean ledTheEnd = out.isPresent() || stop.flatMap(StopRecord::checkpoint).isPresent();
    return new Outcome(config.workerId(), ledTheEnd, rank, workers, result.stepsRun(),
        model.parameters().clone(), out, ending, from.nextStep(), result.nextStep(), membership.switches(),
        stop, out.isPresent() ? leadership.summary().map(org.edl.worker.coord.RunSummary::samples).orElse(-1L) : -1);
  }

  /**
   * The leader the election names refuses connections: its process is gone, and waiting for its
   * ZooKeeper session to expire (30 s) would hold the job that long when the AM cannot report the
   * exit (paused, restarting). Best effort; the session's expiry remains the fallback.
   */
  private void withdrawDeadLeader(CuratorFramework client, String address) {
    try {
      org.edl.job.CandidateWithdrawal.withdraw(client, config.appId(), address,
          "its coordinator port refuses connections");
    } catch (Exception e) {
      LOG.warn("Could not withdraw the dead leader {}: {}", address, e.toString());
    }
  }

  private ElasticMembership membership(TrainableModel model, TrainingRing ring, Dataset data, long started) {
    return membershipFor(model, data, started).apply(ring);
  }

  /**
   * What a membership needs besides its ring, built ahead of it: a newcomer builds it before it
   * says ready, since every member waits for its first step after the switch.
   */
  private Function<TrainingRing, ElasticMembership> membershipFor(TrainableModel model, Dataset data, long started) {
    ElasticMembership.Context cx = new ElasticMembership.Context(config.workerId(), dataPlane, leader, leadership,
        new ElasticMembership.Candidacy() {
          @Override
          public void join() {
            joinElection();
          }

          @Override
          public void leave() {
            leadership.retire();
            closeElection();
          }
        }, model, config.rpcTimeout(), config.ticker(), listener, this::startReportingIfLeading,
        config.spec().resources().gpusPerWorker(), phases);
    PeriodicCheckpoints periodic = new PeriodicCheckpoints(config.hadoopConf(), config.appId(), config.spec().output(),
        config.spec().checkpoints().kept(), CheckpointSchedule.of(config.spec(), config.ticker()), leadership, model,
        (at, workers) -> CheckpointMeta.of(at, config.spec(), workers, model.name(), model.parameters().length,
            data.size(), Instant.now(), leadership.leaderEpoch()),
        config.ticker(), config.rpcTimeout(), listener, config.workerId());
    ElasticMembership.Duties duties = new ElasticMembership.Duties(
        (order, next, workers) -> storage.writeCheckpoint(model, data, order, next, workers), periodic,
        path -> storage.restoreState(model, path), (end, workers) -> storage.writeOutput(model, started));
    return ring -> {
      ElasticMembership membership = new ElasticMembership(cx, duties, ring);
      resources.push(membership);
      current = membership;
      return membership;
    };
  }

  /** The leader reports progress to the AM; a worker that takes over starts reporting then. */
  private synchronized void startReportingIfLeading() {
    if (reporter != null || config.amAddress() == null || !leadership.isLeading()) {
      return;
    }
    reporter = new ProgressReporter(config.amAddress(), this::currentAmAddress, config.secret(),
        config.rpcTimeout(), () -> leadership.progress().map(Wire::progress));
    resources.push(reporter);
    reporter.start(config.progressInterval());
    LOG.info("Reporting progress to the AM at {}", config.amAddress());
  }

  private synchronized void startHeartbeat(ElasticMembership membership) {
    if (heartbeat != null) {
      return;
    }
    heartbeat = new HeartbeatSender(config.workerId(), finder, selfAddress, coordinator, config.secret(), leader,
        membership::ringVersion, new HeartbeatSender.Listener() {
          @Override
          public void abandon(long ringVersion, String why) {
            membership.abandon(ringVersion, why);
          }

          @Override
          public void fenced(String why) {
            // One road out of the job, whoever learns it first: the leader's answer or ZooKeeper.
            fenceSelf(why);
          }

          @Override
          public long knownSwitch() {
            return membership.knownSwitch();
          }

          @Override
          public void switchAhead(org.edl.thrift.SwitchOrder order) {
            membership.switchAhead(order);
          }
        });
    resources.push(heartbeat);
    heartbeat.start();
  }

  /** A new AM attempt listens elsewhere and publishes where in ZooKeeper. */
  private Optional<HostPort> currentAmAddress() throws Exception {
    CuratorFramework client = zk;
    return client == null ? Optional.empty() : AmAddressRecord.read(client, config.appId());
  }

  /** The background start-up thread: data plane, coordinator server, election, registration. */
  private Membership joinJob() throws Exception {
    long deadline = System.nanoTime() + config.startupTimeout().toNanos();
    RefusalListener refusals = (peer, cause) ->
        LOG.warn("Worker {} refused a connection from {}: {}", config.workerId(), peer, cause.getMessage());
    dataPlane = DataPlane.start(config.workerId(), config.host(), 0, config.secret(), config.rpcTimeout(), refusals)
        .shareMemoryIn(SharedMemoryDirs.usable(config.ringSharedMemoryDir()));
    resources.push(dataPlane);
    // Every member may connect (the leader's coordinator), and the AM and a few clients besides.
    rpcServer = RpcServer.start("coordinator", new Coordinator.Processor<>(coordinator), config.host(), 0,
        config.secret(), min(config.rpcTimeout(), RpcServer.HANDSHAKE_TIMEOUT),
        2 * config.spec().scale().maxWorkers() + 16, refusals);
    resources.push(rpcServer);

    int sessionMs = (int) Math.min(Integer.MAX_VALUE, config.zkSessionTimeout().toMillis());
    CuratorFramework curator = JobZooKeeperAcl.of(config.appId(), config.secret()).applyTo(CuratorFrameworkFactory.builder())
        .connectString(config.zkConnect())
        .sessionTimeoutMs(sessionMs).connectionTimeoutMs(Math.min(15_000, sessionMs))
        .retryPolicy(new ExponentialBackoffRetry(200, 10)).build();
    resources.push(curator);
    curator.start();
    if (!curator.blockUntilConnected((int) left(deadline), TimeUnit.MILLISECONDS)) {
      throw new TimeoutException("ZooKeeper at " + config.zkConnect() + " not reachable within " + config.startupTimeout());
    }
    zk = curator;
    curator.getConnectionStateListenable().addListener((client, state) -> {
      if (state == org.apache.curator.framework.state.ConnectionState.LOST) {
        fenceSelf("its ZooKeeper session ended, so its presence is gone and the leader declares it failed");
      }
    });
    selfAddress = config.host() + ":" + rpcServer.port();
    recordGpus(curator);
    // Before registering: a member the leader knows always has its presence node.
    resources.push(MemberPresence.start(curator, config.appId(), config.workerId(), selfAddress, leadership::presence));
    ZooKeeperLeaderStore s = new ZooKeeperLeaderStore(curator, config.appId(), config.spec(),
        () -> election == null ? null : election.ourPath(), config.zkSessionTimeout());
    store = s;
    resources.push(s);
    s.prepare();
    leadership.store(s);
    finder = new LeaderFinder(curator, config.appId());
    if (firstRingWorker(s.read())) {
      joinElection();
    }

    LeaderConnection connection = new LeaderConnection(finder, selfAddress, coordinator, config.secret(),
        config.rpcTimeout(), config.startupTimeout(), dead -> withdrawDeadLeader(curator, dead));
    resources.push(connection);
    connection.attachToCurrent(Duration.ofMillis(left(deadline)));
    WorkerInfo self = new WorkerInfo(config.workerId(), config.host(), dataPlane.port());
    if (!config.gpus().isEmpty()) {
      self.setGpuIndex(config.gpus().first());
    }
    if (!config.node().equals(config.host())) {
      self.setNode(config.node());
    }
    if (config.spec().script().isSet()) {
      self.setScriptPort(scriptStorePort.await(left(deadline), config.startupTimeout()));
    }
    Registration reg = register(connection, self, deadline);
    LOG.info("Registered with the leader at {}{}{}", connection.address(),
        connection.isSelf() ? " (this worker)" : "", reg.isPending() ? " as a newcomer" : "");
    leader = connection;
    listener.registered(config.workerId(), reg.isPending());
    Topology t = reg.isPending() ? reg.getTopology() : awaitRing(connection, self, reg.getTopology(), deadline);
    return new Membership(connection, reg, t);
  }

  /**
   * Replaces the AM's suggestion in ZooKeeper with the GPUs this worker holds, for {@code edl
   * status} and for an AM attempt that adopts it. Best effort: training does not depend on it.
   */
  private void recordGpus(CuratorFramework client) {
    if (config.gpus().isEmpty()) {
      return;
    }
    try {
      new org.edl.job.GpuIndexRecord(client, config.appId()).write(config.workerId(), config.gpus().indices());
    } catch (Exception e) {
      LOG.warn("Could not record this worker's GPUs {} in ZooKeeper: {}", config.gpus().indices(), e.toString());
    }
  }

  /**
   * Whether this worker is one of the job's first ring: nothing was recorded yet, or the record
   * is of an incarnation that stopped for the restart this worker belongs to.
   */
  private boolean firstRingWorker(Optional<JobRecord> record) {
    return record.isEmpty() || (record.get().stoppedInto() != null && config.restoreFrom() != null);
  }

  /** Registers, coming back while the leader recovers from a failure (a newcomer then waits, it is not refused). */
  private Registration register(LeaderConnection connection, WorkerInfo self, long deadline) throws Exception {
    while (true) {
      Registration reg = connection.call(c -> c.registerWorker(self));
      if (!reg.isSetRetryAfterMs() || reg.getRetryAfterMs() <= 0) {
        return reg;
      }
      if (left(deadline) <= 0) {
        throw new TimeoutException("the leader did not take this worker within " + config.startupTimeout());
      }
      listener.registrationDeferred(config.workerId(), reg.getRetryAfterMs());
      Thread.sleep(Math.min(reg.getRetryAfterMs(), left(deadline)));
    }
  }

  private Topology awaitRing(LeaderConnection l, WorkerInfo self, Topology topology, long deadline) throws Exception {
    Topology t = topology;
    while (!Wire.contains(t, config.workerId())) {
      if (left(deadline) <= 0) {
        throw new TimeoutException("the ring did not form within " + config.startupTimeout() + ": "
            + t.getRingSize() + " of " + config.spec().scale().workers() + " workers in topology v" + t.getVersion());
      }
      long after = t.getVersion();
      // Registering again is harmless, and a leader elected since the last look learns of this worker.
      t = l.call(c -> {
        c.registerWorker(self);
        return c.awaitTopology(after, (int) Math.min(POLL_MS, left(deadline)));
      });
    }
    LOG.info("Topology v{} with {} workers", t.getVersion(), t.getRingSize());
    return t;
  }

  /** Runs for leadership (once): only ring members, or the first ring's workers, do. */
  private synchronized void joinElection() {
    if (election != null || leadership.phase().isFinal()) {
      return;
    }
    CuratorFramework client = zk;
    LeaderElection e = new LeaderElection(client, config.appId(), selfAddress, leadershipEvents);
    e.addListener(new LeaderElection.Listener() {
      @Override
      public void isLeader() {
        if (!leadership.lead()) {
          closeElection();
          return;
        }
        listener.leading(config.workerId(), leadership.leaderEpoch());
        // A successor takes over on this thread, possibly after its training thread already
        // followed the hand-over and asked: it must start reporting to the AM here too.
        if (phases.phase().inRing()) {
          startReportingIfLeading();
        }
      }

      @Override
      public void notLeader() {
        leadership.fence("lost leadership (ZooKeeper connection suspended or lost, or the latch is gone)");
      }
    });
    election = e;
    resources.push(e);
    try {
      e.start();
    } catch (Exception ex) {
      throw new IllegalStateException("could not join the election: " + ex, ex);
    }
  }

  /**
   * A newcomer's candidacy, on the start-up thread: its ZooKeeper round trips (30-40 ms on a busy
   * host) came between its model and its first step, which every member of the new ring waits
   * for. Until it is in, this worker cannot be elected; the members that were there can.
   */
  private void joinElectionBeside() {
    startup.execute(() -> {
      try {
        joinElection();
      } catch (RuntimeException e) {
        fenceSelf("it could not join the leader election (" + e.getMessage() + ")");
      }
    });
  }

  private void closeElection() {
    LeaderElection e = election;
    if (e != null) {
      try {
        e.close();
      } catch (IOException ex) {
        LOG.warn("Leaving the election failed: {}", ex.toString());
      }
    }
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

  static long left(long deadlineNanos) {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
  }

  private static Thread thread(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** Where this worker's coordinator is (tests wait for a recovery to be under way). */
  org.edl.worker.coord.Phase phase() {
    return leadership.phase();
  }

  /**
   * This worker is out of the job for good: its coordinator never leads again, its ring is
   * abandoned, and its training thread, which may be waiting on ZooKeeper or the leader, is
   * woken so that it ends with {@link FencedException} (exit 4) rather than retrying for minutes.
   */
  private void fenceSelf(String why) {
    if (!phases.fence(why)) {
      return;
    }
    LOG.warn("Worker {} is out of the job: {}", config.workerId(), why);
    // On Curator's connection-state thread: the fence is posted to the leader's loop, not waited for.
    leadership.fence(why);
    ElasticMembership m = current;
    if (m != null) {
      m.fenced(why);
    }
    Thread t = runner;
    if (t != null) {
      t.interrupt();
    }
  }

  /** This worker's ZooKeeper client (tests expire its session). */
  CuratorFramework zooKeeper() {
    return zk;
  }

  /**
   * Dies as a process does that is killed: its ZooKeeper session ends first (as the server
   * sees a killed process's connection drop), then every socket closes, and nothing is handed
   * over. The run's thread ends with an error: it is interrupted too, since a thread that only
   * polls the leader (a newcomer waiting for its switch) holds nothing the closing ends.
   */
  void crash() {
    CuratorFramework client = zk;
    if (client != null) {
      client.close();
    }
    close();
    Thread t = runner;
    if (t != null) {
      t.interrupt();
    }
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

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
