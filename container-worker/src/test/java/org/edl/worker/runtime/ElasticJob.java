package org.edl.worker.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.zip.CRC32;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.hadoop.conf.Configuration;
import org.edl.job.JobSecret;
import org.edl.job.JobSpec;
import org.edl.job.rpc.LeaderClient;
import org.edl.thrift.SwitchOrder;
import org.edl.worker.data.BatchSlicer;

/**
 * One elastic job for a test: workers as threads of this JVM over a real ZooKeeper and real TCP,
 * started and removed while the job runs, and everything they do recorded. A step gate holds the
 * workers before a given step, so that a test decides how far the job may run before a change
 * happens (no sleeps, no race with the job's end); every wait has a timeout.
 */
final class ElasticJob implements AutoCloseable, WorkerListener {
  static final Duration WAIT = Duration.ofSeconds(60);

  /** One batch as one worker trained it. */
  record Batch(String workerId, long step, BatchSlicer.Range positions, int[] samples) {}

  /** The ZooKeeper the workers and the control client connect to. */
  private final String zkConnect;
  final String appId;
  final JobSpec spec;
  /** One secret per application, as in YARN: a stop-resume relaunch (a second ElasticJob of the app) keeps it. */
  private static final Map<String, JobSecret> SECRETS = new ConcurrentHashMap<>();
  final JobSecret secret;
  private final Duration switchAllowance;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final Map<String, Worker> workers = new ConcurrentHashMap<>();
  private final Map<String, Future<Worker.Outcome>> outcomes = new ConcurrentHashMap<>();
  final List<Batch> batches = new CopyOnWriteArrayList<>();
  final Map<String, List<SwitchRecord>> switches = new ConcurrentHashMap<>();
  final Map<String, Long> readyNanos = new ConcurrentHashMap<>();
  /** Per worker, the switches it began connecting for on a heartbeat's news (ahead of the sync reply). */
  final Map<String, List<SwitchOrder>> preparedAhead = new ConcurrentHashMap<>();
  final Map<String, StopRecord> stops = new ConcurrentHashMap<>();
  final Map<String, List<RecoveryRecord>> recoveries = new ConcurrentHashMap<>();
  /** Every step each worker began, in order (a batch cut short by a failure included). */
  final Map<String, List<Long>> begun = new ConcurrentHashMap<>();
  /** Control-call and collective timeout of the workers started from now on. */
  volatile Duration rpcTimeout = WorkerConfig.DEFAULT_RPC_TIMEOUT;
  /** ZooKeeper session timeout of the workers started from now on. */
  volatile Duration zkSessionTimeout = WorkerConfig.DEFAULT_ZK_SESSION_TIMEOUT;
  /** Periodic checkpoints the leader wrote, in order. */
  final List<String> checkpoints = new CopyOnWriteArrayList<>();
  private final Map<String, Long> lastTrained = new ConcurrentHashMap<>();
  private final Map<String, Boolean> registered = new ConcurrentHashMap<>();
  private final java.util.Set<String> deferred = ConcurrentHashMap.newKeySet();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private long gate = Long.MAX_VALUE;
  /** Runs on the leader's training thread just before it writes the model (a test kills it there). */
  volatile ThrowingConsumer onWritingOutput = workerId -> { };
  /** Runs on a newcomer's main thread after it said ready, before it asks for its order. */
  volatile ThrowingConsumer onReadyToJoin = workerId -> { };
  /** Runs on a member's training thread when a switch order reaches it. */
  volatile java.util.function.BiConsumer<String, SwitchOrder> onSwitchOrdered = (workerId, order) -> { };

  /** A hook that may throw, as a worker's own code may. */
  @FunctionalInterface
  interface ThrowingConsumer {
    void accept(String workerId) throws Exception;
  }

  /**
   * The address each worker started from now on binds and announces, which is its host for the
   * ring's layout: loopback's 127.0.0.2, 127.0.0.3, ... stand for other hosts.
   */
  volatile java.util.function.Function<String, String> hostOf = workerId -> "127.0.0.1";

  /** Milliseconds a worker sleeps before a step (its pace; a straggler sleeps longer). */
  volatile java.util.function.ToLongBiFunction<String, Long> paceMillis = (workerId, step) -> 0;
  private CuratorFramework control;

  ElasticJob(String zkConnect, String appId, JobSpec spec, Duration switchAllowance) {
    this.zkConnect = zkConnect;
    this.appId = appId;
    this.secret = SECRETS.computeIfAbsent(appId, a -> JobSecret.generate());
    this.spec = spec;
    this.switchAllowance = switchAllowance;
  }

  static String id(String appId, int i) {
    return String.format("container_%s_%02d", appId, i);
  }

  Future<Worker.Outcome> start(String workerId) {
    return start(workerId, ExecutionContext.FROM_SPEC);
  }

  Future<Worker.Outcome> start(String workerId, ExecutionContext.Factory context) {
    return start(workerId, context, null);
  }

  /** Starts a worker of a job restarted from {@code checkpoint} (null: a fresh start). */
  Future<Worker.Outcome> start(String workerId, ExecutionContext.Factory context, String checkpoint) {
    WorkerConfig config = WorkerConfig.of(appId, workerId, hostOf.apply(workerId), zkConnect, null,
        spec, secret, new Configuration())
        .withStartupTimeout(WAIT)
        .withSwitchAllowance(switchAllowance)
        .withRestoreFrom(checkpoint)
        .withRpcTimeout(rpcTimeout)
        .withZkSessionTimeout(zkSessionTimeout);
    Worker w = new Worker(config, context, this);
    workers.put(workerId, w);
    // As a worker's process does (WorkerMain): a run that fails closes the worker before the
    // process exits, ending its ZooKeeper session and its leadership at once.
    Future<Worker.Outcome> f = threads.submit(() -> {
      try {
        return w.run();
      } catch (Exception | Error e) {
        w.close();
        throw e;
      }
    });
    outcomes.put(workerId, f);
    return f;
  }

  Worker worker(String workerId) {
    return workers.get(workerId);
  }

  /** The worker's run, for a test that expects it to fail. */
  Future<Worker.Outcome> run(String workerId) {
    return outcomes.get(workerId);
  }

  /** Kills the worker as a process dies: session, sockets, all at once, nothing handed over. */
  void crash(String workerId) {
    workers.get(workerId).crash();
  }

  void awaitBegun(String workerId, long step) throws Exception {
    await(() -> begun.getOrDefault(workerId, List.of()).contains(step), workerId + " to begin step " + step);
  }

  Worker.Outcome outcome(String workerId) throws Exception {
    return outcomes.get(workerId).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Scale-in as the AM does it: find the leader through ZooKeeper and ask it. */
  SwitchOrder leave(String workerId) throws Exception {
    try (LeaderClient leader = leader()) {
      return leader.leave(workerId);
    }
  }

  /** Migration as the AM does it: announced to the leader before the newcomers start. */
  SwitchOrder replace(List<String> leavers, int joiners) throws Exception {
    try (LeaderClient leader = leader()) {
      return leader.replace(leavers, joiners);
    }
  }

  /** Stop-resume as the AM asks for it: through the leader found in ZooKeeper. */
  org.edl.thrift.StopOrder stopForRestart(String directory) throws Exception {
    try (LeaderClient leader = leader()) {
      return leader.stopForRestart(directory);
    }
  }

  private LeaderClient leader() throws Exception {
    if (control == null) {
      control = CuratorFrameworkFactory.newClient(zkConnect, new ExponentialBackoffRetry(100, 5));
      control.start();
    }
    return LeaderClient.connect(control, appId, secret, WAIT);
  }

  /** Workers may start steps below {@code limit} only. */
  void holdBefore(long limit) {
    lock.lock();
    try {
      gate = limit;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  void release() {
    holdBefore(Long.MAX_VALUE);
  }

  long gate() {
    lock.lock();
    try {
      return gate;
    } finally {
      lock.unlock();
    }
  }

  void awaitTrained(String workerId, long step) throws Exception {
    await(() -> lastTrained.getOrDefault(workerId, -1L) >= step, workerId + " to train step " + step);
  }

  void awaitRecovered(String workerId) throws Exception {
    await(() -> recoveries.containsKey(workerId), workerId + " to recover");
  }

  void awaitCheckpoints(int count) throws Exception {
    await(() -> checkpoints.size() >= count, count + " periodic checkpoints");
  }

  long lastTrained(String workerId) {
    return lastTrained.getOrDefault(workerId, -1L);
  }

  void awaitRegistered(String workerId) throws Exception {
    await(() -> registered.containsKey(workerId), workerId + " to register");
  }

  void awaitReady(String workerId) throws Exception {
    await(() -> readyNanos.containsKey(workerId), workerId + " to be ready to join");
  }

  SwitchRecord awaitSwitch(String workerId, long topologyVersion) throws Exception {
    await(() -> switches.getOrDefault(workerId, List.of()).stream()
        .anyMatch(r -> r.topologyVersion() == topologyVersion), workerId + " to switch to v" + topologyVersion);
    return switchOf(workerId, topologyVersion);
  }

  SwitchRecord switchOf(String workerId, long topologyVersion) {
    return switches.getOrDefault(workerId, List.of()).stream()
        .filter(r -> r.topologyVersion() == topologyVersion).findFirst().orElseThrow();
  }

  private void await(BooleanSupplier condition, String what) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    lock.lock();
    try {
      while (!condition.getAsBoolean()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new TimeoutException("waited " + WAIT + " for " + what);
        }
        changed.awaitNanos(left);
      }
    } finally {
      lock.unlock();
    }
  }

  private void signal(Runnable update) {
    lock.lock();
    try {
      update.run();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void registrationDeferred(String workerId, int retryAfterMs) {
    signal(() -> deferred.add(workerId));
  }

  void awaitDeferred(String workerId) throws Exception {
    await(() -> deferred.contains(workerId), workerId + " to be asked to register again later");
  }

  @Override
  public void registered(String workerId, boolean newcomer) {
    signal(() -> registered.put(workerId, newcomer));
  }

  @Override
  public void beforeBatch(String workerId, long step) throws InterruptedException {
    signal(() -> begun.computeIfAbsent(workerId, k -> new CopyOnWriteArrayList<>()).add(step));
    long pace = paceMillis.applyAsLong(workerId, step);
    if (pace > 0) {
      Thread.sleep(pace);
    }
    long deadline = System.nanoTime() + WAIT.toNanos();
    lock.lock();
    try {
      while (step >= gate) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IllegalStateException(workerId + " held before step " + step + " for " + WAIT);
        }
        changed.awaitNanos(left);
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void batchTrained(String workerId, long step, BatchSlicer.Range positions, int[] samples) {
    batches.add(new Batch(workerId, step, positions, samples.clone()));
    signal(() -> lastTrained.merge(workerId, step, Math::max));
  }

  @Override
  public void readyToJoin(String workerId, long topologyVersion, long atNanos) {
    signal(() -> readyNanos.put(workerId, atNanos));
    try {
      onReadyToJoin.accept(workerId);
    } catch (Exception e) {
      throw new IllegalStateException(workerId + " was held after its ready call and gave up: " + e, e);
    }
  }

  @Override
  public void switchOrdered(String workerId, long reportedStep, SwitchOrder order) {
    onSwitchOrdered.accept(workerId, order);
  }

  @Override
  public void switchPrepared(String workerId, SwitchOrder order, boolean fromHeartbeat) {
    if (fromHeartbeat) {
      signal(() -> preparedAhead.computeIfAbsent(workerId, k -> new CopyOnWriteArrayList<>()).add(order));
    }
  }

  SwitchOrder awaitPreparedAhead(String workerId, long topologyVersion) throws Exception {
    await(() -> preparedAhead.getOrDefault(workerId, List.of()).stream()
        .anyMatch(o -> o.getTopologyVersion() == topologyVersion),
        workerId + " to connect for v" + topologyVersion + " on a heartbeat's news");
    return preparedAhead.get(workerId).stream().filter(o -> o.getTopologyVersion() == topologyVersion)
        .findFirst().orElseThrow();
  }

  @Override
  public void writingOutput(String workerId) throws Exception {
    onWritingOutput.accept(workerId);
  }

  @Override
  public void switched(String workerId, SwitchRecord record) {
    signal(() -> switches.computeIfAbsent(workerId, k -> new CopyOnWriteArrayList<>()).add(record));
  }

  @Override
  public void checkpointed(String workerId, String path, long blockedNanos, long writeNanos) {
    signal(() -> checkpoints.add(path));
  }

  @Override
  public void recovered(String workerId, RecoveryRecord record) {
    signal(() -> recoveries.computeIfAbsent(workerId, k -> new CopyOnWriteArrayList<>()).add(record));
  }

  @Override
  public void stopped(String workerId, StopRecord record) {
    signal(() -> stops.put(workerId, record));
  }

  static long checksum(float[] parameters) {
    CRC32 crc = new CRC32();
    for (float p : parameters) {
      int bits = Float.floatToIntBits(p);
      crc.update(new byte[] {(byte) bits, (byte) (bits >> 8), (byte) (bits >> 16), (byte) (bits >> 24)});
    }
    return crc.getValue();
  }

  /** Every batch's positions, sorted: must tile [0, end) with no gap and no overlap. */
  List<BatchSlicer.Range> positionsInOrder() {
    List<BatchSlicer.Range> ranges = new ArrayList<>();
    for (Batch b : batches) {
      if (b.positions().length() > 0) {
        ranges.add(b.positions());
      }
    }
    ranges.sort((a, b) -> Long.compare(a.from(), b.from()));
    return ranges;
  }

  static String describe(float[] p) {
    return p.length + " parameters, first " + Arrays.toString(Arrays.copyOf(p, Math.min(3, p.length)));
  }

  @Override
  public void close() {
    release();
    workers.values().forEach(Worker::close);
    threads.shutdownNow();
    if (control != null) {
      control.close();
    }
  }
}
