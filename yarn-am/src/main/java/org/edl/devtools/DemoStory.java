package org.edl.devtools;

import java.io.PrintWriter;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.edl.bench.BenchJob;
import org.edl.bench.ContainerProcesses;
import org.edl.bench.ScalingAnalysis;
import org.edl.bench.Timelines;
import org.edl.cli.SubmitCommand;
import org.edl.client.JobControlConnection;
import org.edl.client.JobSubmitter;
import org.edl.client.SubmittedJob;
import org.edl.job.Growth;
import org.edl.job.JobSpec;
import org.edl.job.BatchRule;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;

/**
 * What {@code edl demo} shows, on the embedded cluster (8 GPUs): an elastic job starts with 2
 * workers and grows into the idle GPUs by itself, stop-free; one of its workers is killed and the
 * job recovers; another user's job arrives, the first is warned and shrinks to its share, and
 * grows back once the other is done; a closing table gives each change's pause, measured from the
 * workers' own timelines. Each act waits for what it shows, up to a limit: on a slow machine an
 * act that does not come is said so, and the story goes on.
 */
final class DemoStory {
  static final String OTHER_USER = "alice";
  private static final Duration ACT_LIMIT = Duration.ofSeconds(90);
  private static final Duration POLL = Duration.ofMillis(200);

  private final Configuration conf;
  private final YarnClient yarn;
  private final PrintWriter out;
  private final long started = System.currentTimeMillis();
  private final List<SeenChange> changes = new ArrayList<>();
  private int workers;
  /** The job ended while the story waited for something: the acts after it are left out. */
  private boolean ended;

  DemoStory(Configuration conf, YarnClient yarn, PrintWriter out) {
    this.conf = conf;
    this.yarn = yarn;
    this.out = out;
  }

  static org.edl.job.JobSpecBuilder mlp(String name, String data, int workers, int min, int max, long steps) {
    return JobSpec.builder().name(name).model("mlp").data(data).format("libsvm").workers(workers)
        .minWorkers(min).maxWorkers(max).gpusPerWorker(1).workerMemoryMb(768).workerVcores(1).steps(steps)
        .batchSize(2048).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1).hidden(256).seed(1).backend("cpu")
        .checkpoints(100, 10, 2).timeline(true);
  }

  /** Runs the story; returns the job's exit code as {@code edl submit} would. */
  int run(String data, long steps) throws Exception {
    // Growth by the GPUs' idleness alone (efficiency off): two cores do not speed an MLP up, and
    // the story is about the mechanism.
    JobSpec spec = mlp("edl-demo", data, 2, 2, 6, steps).growth(new Growth(true, Double.NaN, 5_000)).build();
    SubmittedJob job = new JobSubmitter(conf, yarn).submit(spec);
    say("Submitted " + job.appId() + ": an MLP that starts with 2 workers and may grow to 6 (" + steps + " steps)");
    try (JobControlConnection c = BenchJob.connect(conf, yarn, job)) {
      JobControl.Iface control = c.control();
      if (await(control, "training with 2 workers", s -> workers(s) >= 2) != null) {
        say("Training with " + workers + " workers; 6 GPUs are idle, so the job asks YARN for them one at a time");
      }
      if (!ended && await(control, "growing to 6 workers by itself", s -> workers(s) == 6) != null) {
        killAWorker(control);
      }
      if (!ended) {
        otherUser(control, data);
      }
      if (!ended) {
        say("Waiting for the job to finish its " + steps + " steps...");
      }
    } catch (org.apache.thrift.TException e) {
      // The AM went away between two polls: the job ended (or failed); its report says which.
      say("(the job's ApplicationMaster stopped answering: " + e.getMessage() + ")");
    }
    ApplicationReport end = BenchJob.awaitFinished(yarn, job);
    boolean ok = end.getFinalApplicationStatus() == FinalApplicationStatus.SUCCEEDED;
    say("The job " + (ok ? "SUCCEEDED" : "ended " + end.getFinalApplicationStatus() + ": " + end.getDiagnostics()));
    closingTable(job, ok);
    return ok ? 0 : 1;
  }

  private void killAWorker(JobControl.Iface control) throws Exception {
    JobStatus s = control.status();
    if (!s.isSetProgress() || !s.getProgress().isSetMembers() || s.getProgress().getMembersSize() < 2) {
      say("(no ring to kill a worker in)");
      return;
    }
    List<String> members = s.getProgress().getMembers();
    String victim = members.get(members.size() - 1);
    int before = members.size();
    long step = s.getProgress().getStep();
    try {
      ContainerProcesses processes = new ContainerProcesses();
      processes.kill(processes.find(victim));
    } catch (Exception e) {
      say("(could not kill a worker here: " + e.getMessage() + ")");
      return;
    }
    long killedAt = System.currentTimeMillis();
    say("Killed worker " + victim + " (kill -9) at step " + step);
    int noted = changes.size();
    JobStatus back = await(control, "the job to train without it", t -> t.isSetProgress()
        && t.getProgress().isSetMembers() && !t.getProgress().getMembers().contains(victim)
        && t.getProgress().getStep() > step);
    if (back != null) {
      double seconds = (System.currentTimeMillis() - killedAt) / 1000.0;
      // The recovery is this row: a shrink noted on the way is the same change, and no timeline
      // could measure it as one (a recovery is no switch). The ring's size comes from the report
      // itself, since the AM answers "scaling" while it replaces the worker and the poll notes none.
      changes.subList(noted, changes.size()).clear();
      workers = back.getProgress().getWorkers();
      say(String.format(Locale.ROOT, "Recovered: training again at step %d with %d workers, %.1f s after the kill",
          back.getProgress().getStep(), workers, seconds));
      changes.add(new SeenChange("worker killed, recovered", killedAt, before, workers,
          String.format(Locale.ROOT, "%.1f (until training again)", seconds)));
      await(control, "a replacement to join", t -> workers(t) == 6);
    }
  }

  private void otherUser(JobControl.Iface control, String data) throws Exception {
    UserGroupInformation alice = UserGroupInformation.createRemoteUser(OTHER_USER);
    FileSystem fs = FileSystem.get(conf);
    Path home = new Path("/user/" + OTHER_USER);
    fs.mkdirs(home);
    fs.setOwner(home, OTHER_USER, null);
    JobSpec spec = mlp("edl-demo-" + OTHER_USER, data, 4, 4, 4, 200).build();
    SubmittedJob other = alice.doAs((PrivilegedExceptionAction<SubmittedJob>) () -> {
      try (YarnClient hers = SubmitCommand.startYarnClient(conf)) {
        return new JobSubmitter(conf, hers).submit(spec);
      }
    });
    say(OTHER_USER + " submits a 4-worker job (" + other.appId() + "): the scheduler warns this job, which holds"
        + " more than its share");
    await(control, "shrinking to its share of 4", s -> workers(s) == 4);
    ApplicationReport r = BenchJob.awaitFinished(yarn, other);
    say(OTHER_USER + "'s job ended: " + r.getFinalApplicationStatus());
    if (!ended) {
      await(control, "growing back to 6", s -> workers(s) == 6);
    }
  }

  /** Polls the job until {@code done}, noting every change of the ring's size; null on timeout. */
  private JobStatus await(JobControl.Iface control, String what, Predicate<JobStatus> done) throws Exception {
    long deadline = System.nanoTime() + ACT_LIMIT.toNanos();
    while (System.nanoTime() < deadline) {
      JobStatus s = control.status();
      int now = workers(s);
      if (now != workers && now > 0) {
        if (workers > 0) {
          changes.add(new SeenChange(now > workers ? "grew" : "shrank", System.currentTimeMillis(), workers, now));
          say(String.format(Locale.ROOT, "  %s to %d workers at step %d", now > workers ? "grew" : "shrank", now,
              s.getProgress().getStep()));
        }
        workers = now;
      }
      if (done.test(s)) {
        return s;
      }
      if (s.getState() == JobState.SUCCEEDED || s.getState() == JobState.FAILED || s.getState() == JobState.KILLED) {
        say("(the job ended before " + what + "; try a larger --steps)");
        ended = true;
        return null;
      }
      Thread.sleep(POLL.toMillis());
    }
    say("(not seen within " + ACT_LIMIT.toSeconds() + " s: " + what + "; going on)");
    return null;
  }

  private static int workers(JobStatus s) {
    return s.isSetProgress() && s.getState() == JobState.RUNNING ? s.getProgress().getWorkers() : 0;
  }

  private void closingTable(SubmittedJob job, boolean ok) {
    if (changes.isEmpty()) {
      return;
    }
    ScalingAnalysis analysis = null;
    try {
      analysis = new ScalingAnalysis(Timelines.read(job.spec().output(), conf));
    } catch (Exception e) {
      say("(no worker timelines to measure the pauses: " + e.getMessage() + ")");
    }
    say("");
    new PauseTable(started, analysis).lines(changes).forEach(this::say);
    say("t: when the change began. Growing and shrinking pause training only for the switch (and, for a newcomer,"
        + " the model broadcast); a change made in several switches shows their sum; a killed worker costs the"
        + " recovery.");
    if (ok) {
      say("Model and metrics: " + job.spec().output());
    }
  }

  private void say(String line) {
    out.println(line);
    out.flush();
  }
}
