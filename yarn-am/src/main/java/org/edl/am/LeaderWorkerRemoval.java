package org.edl.am;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.thrift.transport.TTransportException;
import org.edl.job.JobSecret;
import org.edl.job.rpc.LeaderClient;
import org.edl.thrift.EdlError;
import org.edl.thrift.SwitchOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link WorkerRemoval} and {@link JobStopper} through the job's leader: found under {@code /edl/<appId>/leader} with
 * {@link LeaderClient} and asked {@code leave(containerId)} (or, for a migration,
 * {@code replace(leavers, joiners)}, or for stop-resume {@code stopForRestart}). The calls run on one thread of
 * their own, never the AM's main thread, and each answer is posted back to the main thread.
 * The leader may move while it is asked (a leaving leader hands the job over), so "not the
 * leader" and a dropped connection are retried against whoever leads then, until the timeout.
 */
public final class LeaderWorkerRemoval implements WorkerRemoval, JobStopper, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderWorkerRemoval.class);
  private static final long RETRY_PAUSE_MS = 200;

  private final CuratorFramework zk;
  private final String appId;
  private final JobSecret secret;
  private final Duration timeout;
  private final Executor mainThread;
  private final ExecutorService network = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "am-leave");
    t.setDaemon(true);
    return t;
  });

  /**
   * @param zk         a started Curator client of the job's ZooKeeper (the caller closes it)
   * @param timeout    how long one container's leave may take, retries included
   * @param mainThread where the answers go
   */
  public LeaderWorkerRemoval(CuratorFramework zk, String appId, JobSecret secret, Duration timeout,
      Executor mainThread) {
    this.zk = zk;
    this.appId = appId;
    this.secret = secret;
    this.timeout = timeout;
    this.mainThread = mainThread;
  }

  @Override
  public void leave(List<String> containerIds, Answers answers) {
    List<String> ids = List.copyOf(containerIds);
    network.execute(() -> {
      for (String id : ids) {
        try {
          SwitchOrder order = leaveOne(id);
          LOG.info("Leader scheduled {} to leave {}", id,
              order.getAtStep() < 0 ? "with the pending change" : "at step " + order.getAtStep());
          mainThread.execute(() -> answers.accepted(id, order.getAtStep()));
        } catch (Exception e) {
          LOG.warn("Leader did not accept the leave of {}: {}", id, e.toString());
          mainThread.execute(() -> answers.refused(id, e));
        } catch (Throwable t) {
          mainThread.execute(() -> answers.refused(id, new IllegalStateException(t)));
          throw t;
        }
      }
    });
  }

  /**
   * A retried replace is harmless: the leader answers a replacement of the same leavers with the
   * one it holds, and a successor holds the one it was handed. When the call fails without the
   * leader's answer (it may hold the replacement all the same), it is withdrawn before the fleet
   * hears "refused": a held replacement would otherwise take the leavers along with the next
   * newcomers of some later change.
   */
  @Override
  public void replace(List<String> leavers, int joiners, ReplacementAnswer answer) {
    List<String> ids = List.copyOf(leavers);
    network.execute(() -> {
      try {
        SwitchOrder order = ask(ids + " to be replaced", leader -> leader.replace(ids, joiners));
        LOG.info("Leader holds the leave of {} for {} newcomers", ids, joiners);
        mainThread.execute(() -> answer.accepted(order.getAtStep()));
      } catch (Exception e) {
        LOG.warn("Leader did not accept the replacement of {}: {}", ids, e.toString());
        if (!(e instanceof EdlError)) {
          withdraw(ids);
        }
        mainThread.execute(() -> answer.refused(e));
      } catch (Throwable t) {
        mainThread.execute(() -> answer.refused(new IllegalStateException(t)));
        throw t;
      }
    });
  }

  /** Stop-resume: the same leader, the same retries, on the same thread. */
  @Override
  public void stopForRestart(String directory, JobStopper.Answer answer) {
    network.execute(() -> {
      try {
        org.edl.thrift.StopOrder order = ask("for a stop into " + directory, leader -> leader.stopForRestart(directory));
        LOG.info("Leader stops every worker after step {} with a checkpoint in {}", order.getAtStep(), directory);
        mainThread.execute(() -> answer.accepted(order.getAtStep()));
      } catch (Exception e) {
        LOG.warn("Leader did not accept the stop into {}: {}", directory, e.toString());
        mainThread.execute(() -> answer.refused(e));
      }
    });
  }

  private SwitchOrder leaveOne(String containerId) throws Exception {
    return ask(containerId + " to leave", leader -> leader.leave(containerId));
  }

  private void withdraw(List<String> ids) {
    try {
      boolean withdrawn = ask("to withdraw the replacement of " + ids, leader -> leader.cancelReplace(ids));
      LOG.info("Replacement of {} {}", ids, withdrawn ? "withdrawn" : "was not held by the leader");
    } catch (Exception e) {
      // Left as it is: the leavers still train as members; the operator sees this in the log.
      LOG.error("Could not withdraw the replacement of {}; the leader may still hold it: {}", ids, e.toString());
    }
  }

  private <T> T ask(String what, LeaderCall<T> call) throws Exception {
    return callLeader(zk, appId, secret, timeout, "asking " + what, call);
  }

  /** One call on the leader. */
  public interface LeaderCall<T> {
    T apply(LeaderClient leader) throws Exception;
  }

  /**
   * Calls whoever leads the job, retrying "not the leader" and dropped connections (the leader
   * may be handing over) until {@code timeout}.
   */
  public static <T> T callLeader(CuratorFramework zk, String appId, JobSecret secret, Duration timeout,
      String what, LeaderCall<T> call) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
      try (LeaderClient leader = LeaderClient.connect(zk, appId, secret, max(left, Duration.ofSeconds(1)))) {
        return call.apply(leader);
      } catch (Exception e) {
        boolean retriable = LeaderClient.isNotLeader(e) || e instanceof TTransportException;
        if (!retriable || System.nanoTime() > deadline) {
          throw e;
        }
        LOG.info("Leader moved while {} ({}); retrying", what, e.getMessage());
        Thread.sleep(RETRY_PAUSE_MS);
      }
    }
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  @Override
  public void close() {
    network.shutdownNow();
  }
}
