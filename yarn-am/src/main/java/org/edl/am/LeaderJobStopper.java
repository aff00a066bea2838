package org.edl.am;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.curator.framework.CuratorFramework;
import org.edl.thrift.StopOrder;
import org.edl.worker.security.JobSecret;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link JobStopper} through the job's leader ({@code stopForRestart}), off the main thread. */
public final class LeaderJobStopper implements JobStopper, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderJobStopper.class);

  private final CuratorFramework zk;
  private final String appId;
  private final JobSecret secret;
  private final Duration timeout;
  private final Executor mainThread;
  private final ExecutorService network = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "am-stop");
    t.setDaemon(true);
    return t;
  });

  public LeaderJobStopper(CuratorFramework zk, String appId, JobSecret secret, Duration timeout,
      Executor mainThread) {
    this.zk = zk;
    this.appId = appId;
    this.secret = secret;
    this.timeout = timeout;
    this.mainThread = mainThread;
  }

  @Override
  public void stopForRestart(String directory, Answer answer) {
    network.execute(() -> {
      try {
        StopOrder order = LeaderWorkerRemoval.callLeader(zk, appId, secret, timeout,
            "asking for a stop into " + directory, leader -> leader.stopForRestart(directory));
        LOG.info("Leader stops every worker after step {} with a checkpoint in {}", order.getAtStep(), directory);
        mainThread.execute(() -> answer.accepted(order.getAtStep()));
      } catch (Exception e) {
        LOG.warn("Leader did not accept the stop into {}: {}", directory, e.toString());
        mainThread.execute(() -> answer.refused(e));
      }
    });
  }

  @Override
  public void close() {
    network.shutdownNow();
  }
}
