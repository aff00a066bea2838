/*
 * EDL control protocol. Thrift carries control only; gradients and model broadcasts move over
 * the TCP data plane (container-worker, org.edl.worker.collective). Every connection, control
 * and data alike, first passes the job-secret handshake (org.edl.job.rpc, container-worker).
 *
 * After editing this file run thrift/generate.sh and commit the regenerated Java:
 * IdlRegenerationTest fails when the two disagree.
 */
namespace java org.edl.thrift
namespace py edl_gen

/** A user-facing error: which field was wrong and with what value. */
exception EdlError {
  1: required string message,
  2: optional string field,
  3: optional string value
}

/**
 * One worker as the ring knows it. workerId is the YARN container id; host is the address its
 * peers connect to; node is its NodeManager's id (host:port), which tells two nodes on one host
 * apart (the embedded cluster's) when the ring's placement is counted. Unset: host.
 */
struct WorkerInfo {
  1: required string workerId,
  2: required string host,
  3: required i32 dataPort,
  4: optional i32 gpuIndex = -1,
  5: optional string node,
  /**
   * A script job's worker: the port of the rendezvous store its script serves (torch.distributed's
   * TCPStore), where the ring's first member gathers a new process group. Unset: no script.
   */
  6: optional i32 scriptPort
}

/** The ordered ring; version grows by one with every membership change (an epoch). */
struct Topology {
  1: required i64 version,
  2: required list<WorkerInfo> ring
}

enum BatchRule {
  /** Global batch fixed, split over the workers. */
  FIXED_GLOBAL = 1,
  /** Per-worker batch fixed; the learning rate scales linearly with the worker count. */
  FIXED_PER_WORKER = 2
}

/** How a running job changes its number of workers. */
enum ScaleMode {
  /** Stop-free: the existing workers pause only for the model broadcast to the newcomers. */
  EDL = 1,
  /** The baseline: checkpoint, stop every worker, relaunch at the new size, restore. */
  STOP_RESUME = 2
}

/** What the leader owns besides the ring; handed to a successor when the leader leaves. */
struct JobMeta {
  1: required i64 step,
  2: required i32 epoch,
  3: required BatchRule batchRule,
  4: required i32 batchSize,
  5: required double baseLearningRate,
  6: optional list<i32> finishedChunks,
  7: optional i64 samplesSeen,
  8: optional double lastLoss
}

/**
 * What the leader publishes in ZooKeeper (/edl/<appId>/job, compact protocol) whenever the ring,
 * the pending change, the newest checkpoint or the fenced workers change, and when it leaves or
 * finishes. Every successor starts from it (never from anything else): the write is conditional
 * on the writer's leader epoch still being the newest (/edl/<appId>/epoch), so a leader that was
 * superseded cannot overwrite it.
 */
struct LeaderRecord {
  1: required string leaderId,
  2: required Topology topology,
  3: required JobMeta meta,
  /** The newest complete checkpoint and the job position it holds. */
  4: optional string checkpoint,
  5: optional JobMeta checkpointMeta,
  /** Where the job started (step 0, or the checkpoint it was restored from). */
  6: optional JobMeta initialMeta,
  /** Workers declared failed so far: still refused under a new leader. */
  7: optional list<string> fenced,
  /** The leadership that wrote this record. */
  8: optional i64 leaderEpoch,
  /** The next change, scheduled (atStep >= 0) or still waiting for newcomers (atStep < 0). */
  9: optional SwitchOrder pending,
  /** Each member's run of consecutive slow batches, so straggler detection goes on where it was. */
  10: optional map<string, i32> stragglerRuns,
  /** The loss of the job's first completed step (metrics.json first_loss). */
  11: optional double firstLoss,
  /**
   * The leader left at a switch (graceful scale-in or migration) and this is the ring after it:
   * every member completed meta.step with the same model, so the successor goes on without a
   * recovery.
   */
  12: optional bool departed = false,
  /** The model and metrics are written (the job is over): the successor only answers awaitFinish. */
  13: optional string modelPath,
  14: optional string metricsPath,
  /**
   * The job stopped for a restart (stop-resume) with its checkpoint here: this incarnation is
   * over, and the restarted job's first ring forms afresh under a newer epoch.
   */
  15: optional string stoppedInto,
  /** A stop for a restart the leader scheduled: a successor keeps it. */
  16: optional StopOrder stop,
  /**
   * The order of the applied switch that admitted each newcomer which has not reported a step
   * yet, by newcomer: one that asks a successor for its order (the leader handed over at that
   * very switch before the newcomer asked) gets the switch and the broadcaster it was admitted by.
   */
  17: optional map<string, SwitchOrder> joinOrders
}

/** Reply to register: the ring the worker will join and the job meta-data. */
struct Registration {
  1: required Topology topology,
  2: required JobMeta meta,
  /**
   * True when the job is already running and `topology` is the pending change this worker joins:
   * it reports `ready` once its context is prepared, then waits for the SwitchOrder (awaitSwitch).
   */
  3: optional bool pending = false,
  4: optional i64 leaderEpoch,
  /**
   * > 0: nothing was registered; the leader is recovering from a failure and takes newcomers once
   * it has decided. Register again after this many milliseconds.
   */
  5: optional i32 retryAfterMs
}

/**
 * "Switch to topology `topologyVersion` at the end of batch `atStep`": the switch-at-step OK.
 * At that step `broadcasterId` sends the model to `joiners`; `leavers` exit.
 */
struct SwitchOrder {
  1: required i64 topologyVersion,
  2: required i64 atStep,
  3: optional string broadcasterId,
  4: optional list<string> joiners,
  5: optional list<string> leavers,
  /** The ring from `atStep + 1` on; atStep < 0 means not scheduled yet (newcomers not ready). */
  6: optional Topology topology,
  /** The leader itself leaves: at the step it hands off, and everyone reconnects to the new one. */
  7: optional bool leaderLeaves = false,
  /**
   * A replacement (Coordinator.replace) still waiting: the switch is scheduled only once this
   * many joiners are in it, all ready. Carried in a hand-off so the successor keeps waiting.
   */
  8: optional i32 awaitedJoiners,
  /** The leadership that gave the order; a member that knows a newer one ignores it. */
  9: optional i64 leaderEpoch,
  /**
   * In the first step on the new ring (`atStep + 1`), the part of the global batch each joiner
   * computes, as a fraction of a member's even part; the other members share the rest evenly. A
   * joiner starts that step only once the model has arrived: a smaller part lets it end the step
   * with the others instead of holding every member's all-reduce. Absent: 1 (even parts).
   */
  10: optional double joinerShare
}

/** "Checkpoint at the end of batch `atStep` into `directory`, then every worker exits." */
struct StopOrder {
  1: required i64 atStep,
  2: required string directory,
  3: optional i64 leaderEpoch
}

/** Sent by every worker at the end of every batch; a missing report marks a failure. */
struct SyncReport {
  1: required string workerId,
  2: required i64 step,
  3: required double loss,
  4: required double batchSeconds,
  5: required i32 samples,
  /** Global sample position where this step's batch starts; every member must agree. */
  6: optional i64 batchStart,
  /** Samples in one epoch (the data set size), so the leader can count finished chunks. */
  7: optional i32 epochSize,
  /** This worker's own time for the batch before the all-reduce: batchSeconds includes the wait
   *  for the slowest member, so only this tells the leader who is slow (straggler detection). */
  8: optional double computeSeconds,
  /** The newest leader epoch this worker knows: a leader with an older one has been superseded. */
  9: optional i64 leaderEpoch
}

/** The leader's answer to a sync report: pending topology and switch, if any. */
struct SyncReply {
  1: optional Topology pendingTopology,
  2: optional SwitchOrder switchOrder,
  3: optional bool finish = false,
  4: optional StopOrder stopOrder,
  /**
   * A member failed: stop training on the current ring and ask the leader for the
   * RecoveryOrder (awaitRecovery) with this step as the last one completed.
   */
  5: optional bool recover = false,
  6: optional i64 leaderEpoch
}

/** How the survivors of a failure carry on (JobSpec recovery, USE_APPX_RECOVERY). */
enum RecoveryMode {
  /** Every survivor reloads the newest checkpoint (or the initial state) and goes on from it. */
  CONSISTENT = 1,
  /** The survivor with the highest completed step broadcasts its model; only the batch in flight is redone. */
  APPROXIMATE = 2,
  /**
   * Only newcomers that never trained were lost (at or before their switch): every survivor holds
   * the same completed step, keeps its model and goes on from the next one. Nothing is redone.
   */
  RESUME = 3
}

/**
 * The leader's answer to awaitRecovery once every survivor has asked (or was declared failed
 * too): the survivors' ring from the next step on and where training resumes.
 * topologyVersion < 0: not decided yet, ask again.
 */
struct RecoveryOrder {
  1: required i64 topologyVersion,
  2: optional Topology topology,
  3: optional RecoveryMode mode,
  /** The members declared failed: they are fenced (their calls are refused) from now on. */
  4: optional list<string> failed,
  /** The step training resumes at and its global sample position. */
  5: optional i64 nextStep,
  6: optional i64 batchStart,
  /** Consistent: the checkpoint every survivor loads; absent: the job's initial state. */
  7: optional string checkpoint,
  /** Approximate: the survivor that sends its model and position to the others. */
  8: optional string sourceId,
  9: optional i64 leaderEpoch
}

/**
 * The leader's answer to a member's heartbeat. Heartbeats come from a thread of their own, so a
 * member blocked in an all-reduce still answers: the member that sends none is the one that hangs.
 */
struct HeartbeatReply {
  1: required i64 leaderEpoch,
  /**
   * >= 0: a member of that ring was declared failed; a worker still training on a ring of this
   * version or older aborts its all-reduce and asks for the recovery order.
   */
  2: optional i64 abandonRing = -1,
  /** This worker was declared failed: it is fenced out of the job and exits. */
  3: optional bool fenced = false,
  /**
   * The scheduled switch this worker stays through (a member before and after it), newer than the
   * one it said it knows: it connects the next ring (and, as broadcaster, dials the newcomers)
   * while the switch step still trains. The sync reply of a step before the switch remains the
   * order it acts on.
   */
  4: optional SwitchOrder switchOrder
}

/** The leader's answer to a member that has trained the job's last step. */
struct FinishReply {
  1: required i64 leaderEpoch,
  /** The model and metrics are written: the member may exit 0. */
  2: optional bool done = false,
  /** A member failed before the output was written: recover (awaitRecovery) and train on. */
  3: optional bool recover = false,
  4: optional string modelPath
}

/** Service run by the elected leader; every worker talks to it. */
service Coordinator {
  Registration registerWorker(1: WorkerInfo worker) throws (1: EdlError error),
  /** A newcomer has its execution context ready for `topologyVersion`. */
  void ready(1: string workerId, 2: i64 topologyVersion) throws (1: EdlError error),
  /** Blocks up to timeoutMs for a topology newer than afterVersion; returns the current one. */
  Topology awaitTopology(1: i64 afterVersion, 2: i32 timeoutMs),
  SyncReply sync(1: SyncReport report) throws (1: EdlError error),
  /**
   * A newcomer waits up to timeoutMs for the switch into `topologyVersion` to be scheduled;
   * the reply's atStep is negative while it is not.
   */
  SwitchOrder awaitSwitch(1: string workerId, 2: i64 topologyVersion, 3: i32 timeoutMs)
      throws (1: EdlError error),
  /**
   * Removes a worker at a future step (graceful scale-in; the AM or the worker itself calls it).
   * The reply says at which step it goes (atStep < 0: merged into a change still waiting for
   * newcomers to be ready).
   */
  SwitchOrder leave(1: string workerId) throws (1: EdlError error),
  /**
   * Migration in one switch: `leavers` leave at the switch that admits the next `joiners`
   * newcomers (called before those are launched). Until they have all registered and are ready
   * the leavers train on as members; the leader admits those newcomers within max-workers
   * counting the leavers as gone. The reply is the change as it stands (atStep < 0 while
   * waiting); asking again with the same leavers and count returns it unchanged.
   */
  SwitchOrder replace(1: list<string> leavers, 2: i32 joiners) throws (1: EdlError error),
  /**
   * Withdraws the replacement of exactly `leavers` while its switch is not scheduled (the AM gave
   * up on its newcomers, e.g. its replace call timed out): they stay members. False when no such
   * replacement is pending; an error when its switch is already scheduled.
   */
  bool cancelReplace(1: list<string> leavers) throws (1: EdlError error),
  /**
   * Stop-resume (the baseline): at a future step the leader writes a checkpoint of the model and
   * the job position to `directory` and every worker exits. The reply names the step.
   */
  StopOrder stopForRestart(1: string directory) throws (1: EdlError error),
  /**
   * A member whose all-reduce or leader call failed (or whose sync reply said recover) asks how
   * to go on; `lastCompletedStep`/`nextBatchStart` say where its own model stands. Blocks up to
   * timeoutMs; the reply's topologyVersion is negative while the order is not decided. A member
   * declared failed is refused (EdlError, field workerId). `brokenLinks`: the ring neighbours whose
   * connection this member saw closed or reset (not merely slow): evidence the leader weighs with
   * their heartbeats.
   */
  RecoveryOrder awaitRecovery(1: string workerId, 2: i64 lastCompletedStep, 3: i64 nextBatchStart,
      4: i32 timeoutMs, 5: list<string> brokenLinks) throws (1: EdlError error),
  /**
   * Sent by every member about twice a second from a thread of its own, with the newest leader
   * epoch it knows and the version of the ring it trains on.
   */
  HeartbeatReply heartbeat(1: string workerId, 2: i64 leaderEpoch, 3: i64 ringVersion)
      throws (1: EdlError error),
  /**
   * A heartbeat the leader may hold up to holdMs until it has news for the member: a ring to
   * abandon, its fencing, or a scheduled switch it stays through with a topology version above
   * knownSwitch. Liveness counts from the call's arrival.
   */
  HeartbeatReply heartbeatAwaiting(1: string workerId, 2: i64 leaderEpoch, 3: i64 ringVersion,
      4: i64 knownSwitch, 5: i32 holdMs) throws (1: EdlError error),
  /**
   * A member that trained the job's last step waits up to timeoutMs for the leader to write the
   * model and metrics; it exits only once they are written (done), so a leader that dies first is
   * succeeded by one that writes them.
   */
  FinishReply awaitFinish(1: string workerId, 2: i64 lastStep, 3: i32 timeoutMs)
      throws (1: EdlError error)
}

/** Progress as the leader reports it to the ApplicationMaster. */
struct JobProgress {
  1: required i64 step,
  2: required i64 totalSteps,
  3: required double loss,
  4: required double samplesPerSecond,
  5: required i32 workers,
  6: optional i32 epoch,
  7: optional string modelPath,
  8: optional string metricsPath,
  9: optional double firstLoss,
  /** Samples trained so far and when the last step completed (leader's clock, seconds), so a
   *  reader can take exact rates between two reports, e.g. per parallelism while profiling. */
  10: optional i64 samplesSeen,
  11: optional double leaderSeconds,
  /** The leader's recent events, oldest first (a straggler it removed), for `edl status`. */
  12: optional list<string> events,
  /** The leadership that reports: the AM ignores reports of an epoch older than one it has seen. */
  13: optional i64 leaderEpoch,
  /** The running ring's version and members (worker ids = container ids). */
  14: optional i64 topologyVersion,
  15: optional list<string> members,
  /** Every worker declared failed in the job so far. */
  16: optional list<string> failed,
  /** The coordinator's phase (RUNNING, CHANGING, RECOVERING, STOPPING, FINISHING, FINISHED). */
  17: optional string phase
}

enum JobState {
  STARTING = 1,
  RUNNING = 2,
  SCALING = 3,
  SUCCEEDED = 4,
  FAILED = 5,
  KILLED = 6
}

/**
 * Where one worker container runs: its host and the GPU indices it uses, as its worker reported
 * them (claimed on its node, or given by YARN); the AM's suggestion until the worker has said.
 */
struct WorkerPlacement {
  1: required string container,
  2: required string host,
  3: required list<i32> gpus
}

struct JobStatus {
  1: required string appId,
  2: required JobState state,
  3: required i32 targetWorkers,
  4: required list<string> containers,
  5: optional JobProgress progress,
  6: optional string diagnostics,
  7: optional i32 minWorkers,
  8: optional i32 maxWorkers,
  9: optional string backend,
  /** The containers' hosts and GPUs, in the order of containers. */
  10: optional list<WorkerPlacement> placements
}

struct ProfilePoint {
  1: required i32 workers,
  2: required double samplesPerSecond,
  3: required i32 batches
}

struct ProfileResult {
  1: required list<ProfilePoint> points,
  /** Where the AM stored the result with the job: a CSV table and a PNG chart. */
  2: optional string tablePath,
  3: optional string chartPath,
  /** Seconds from the request to the last point. */
  4: optional double seconds
}

/** The ApplicationMaster's job-control endpoint (CLI and leader alike). */
service JobControl {
  JobStatus status(),
  /** The leader's periodic progress report. */
  void reportProgress(1: JobProgress progress),
  JobStatus scaleOut(1: i32 count, 2: ScaleMode mode = ScaleMode.EDL) throws (1: EdlError error),
  /** By count (the AM picks, newest first) or by naming containers; not both. */
  JobStatus scaleIn(1: i32 count, 2: list<string> containerIds, 3: ScaleMode mode = ScaleMode.EDL)
      throws (1: EdlError error),
  JobStatus migrate(1: string fromHost, 2: string toHost) throws (1: EdlError error),
  /** Starts at maxWorkers and scales in one worker at a time, `batches` batches at each size. */
  ProfileResult profile(1: i32 minWorkers, 2: i32 maxWorkers, 3: i32 batches = 20)
      throws (1: EdlError error)
}

/*
 * A script job: the worker (org.edl.worker.script) starts the user's Python script as its child and
 * serves it ScriptChannel on the loopback interface, behind the same job-secret handshake as every
 * other connection. The script (the edl package, container-worker's python resources) asks between
 * two steps what to do next; the worker stays the job's member in the EDL protocol.
 */

/** What the script does next. */
enum ScriptAction {
  /** Train one step on `samples` (dataset indices, this member's share of the global batch). */
  STEP = 1,
  /**
   * Leave the process group it is in (if any) and join `group`; the members that hold the job's
   * state send it to those that do not (newcomers). Then ask again.
   */
  FORM_GROUP = 2,
  /** Put its state (model, optimizer) in the next report; then ask again. */
  SAVE_STATE = 3,
  /** Load `state` (empty: the state it was attached with, the job's start); then ask again. */
  LOAD_STATE = 4,
  /** This member's part in the job is over: the script's loop ends. */
  FINISH = 5
}

/** A torch.distributed process group for one ring (version): where its members gather. */
struct ScriptGroup {
  1: required i64 version,
  2: required i32 rank,
  3: required i32 size,
  /** The ring's first member's rendezvous store. */
  4: required string storeHost,
  5: required i32 storePort,
  /** This process among its worker's (--procs-per-worker); rank and size count every process. */
  6: optional i32 localRank,
  7: optional i32 localSize
}

struct ScriptOrder {
  1: required ScriptAction action,
  2: optional i64 step,
  3: optional list<i32> samples,
  4: optional double learningRate,
  5: optional ScriptGroup group,
  6: optional binary state,
  /** The step's global batch: a member's loss sum counts `size / globalBatch` of the mean. */
  7: optional i32 globalBatch,
  /**
   * What the batch rule multiplies the job's learning rate by at this ring's size (the workers
   * under fixed-per-worker, 1 under fixed-global): offered to the script, which sets its own rates.
   */
  8: optional double learningRateScale
}

/** What the script did on the last order. */
struct ScriptReport {
  /** The step it trained (STEP); -1: none. */
  1: optional i64 step = -1,
  /** The summed loss of its samples in that step. */
  2: optional double lossSum,
  /** Its state (SAVE_STATE). */
  3: optional binary state,
  /**
   * The step's (or the group's) collective failed: a member is gone. The script did not apply the
   * step (its model holds the one before); the worker recovers the ring and orders a new group.
   */
  4: optional string lost,
  /**
   * The step's computing time in seconds (STEP): from the order to the last gradient bucket handed
   * to the group's all-reduce, so without the wait for the slowest member that follows.
   */
  5: optional double computeSeconds
}

/** What the worker tells a script on its first call. */
struct ScriptHello {
  1: required string workerId,
  2: required i64 seed,
  /** The global batch's size as the job starts, for the script's information. */
  3: required i32 globalBatch,
  /** "gloo" or "nccl". */
  5: required string backend
}

service ScriptChannel {
  /**
   * The script's first call: its process id, the size of the dataset it indexes, and the port of
   * the rendezvous store it already serves for its groups (bound by the script itself, so that no
   * other process can take the port between its choice and its use).
   */
  ScriptHello hello(1: i32 pid, 2: i64 datasetSize, 3: i32 storePort) throws (1: EdlError e),
  /**
   * Reports what it did on the last order (nothing on the first call) and waits for the next one.
   * An error is the script's own: its message goes into the job's diagnostics.
   */
  ScriptOrder nextOrder(1: ScriptReport report) throws (1: EdlError e),
  /**
   * The samples this member trains at steps fromStep .. fromStep+steps-1 if its ring stays as it
   * is, for a DataLoader's batch sampler to prefetch: asked while the script carries out a step,
   * from that step on; fewer (none) past the job's last step. A step's order still names its
   * samples: what was prefetched for a ring that changed is dropped.
   */
  list<list<i32>> upcomingSamples(1: i64 fromStep, 2: i32 steps) throws (1: EdlError e),
  /** The script failed: its error (a Python traceback), before it exits. */
  void failed(1: string error),
  /**
   * A sign of life, every second from a thread of the script's own on a second connection: a
   * script that gives none for a few seconds is paused or hung, and its worker ends it.
   */
  void alive()
}
