package org.edl.bench.chaos;

import java.io.IOException;
import java.time.Duration;
import java.util.EnumSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.edl.client.JobControlConnection;
import org.edl.client.JobControlLocator;
import org.edl.client.SubmittedJob;
import org.edl.thrift.JobStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls one job as {@code edl status} does: the ResourceManager's report, and the AM's status
 * through its job-control endpoint. The AM may be killed and replaced by a new attempt at
 * another port, so a failed call drops the connection and the next one finds the AM afresh.
 */
public final class JobWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JobWatch.class);
  private static final Duration RPC_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration KILL_WAIT = Duration.ofMinutes(1);
  private static final Duration KILL_POLL = Duration.ofMillis(250);
  private static final EnumSet<YarnApplicationState> ENDED =
      EnumSet.of(YarnApplicationState.FINISHED, YarnApplicationState.FAILED, YarnApplicationState.KILLED);

  private final JobControlLocator locator;
  private final YarnClient yarn;
  private final SubmittedJob job;
  private JobControlConnection connection;

  public JobWatch(Configuration conf, YarnClient yarn, SubmittedJob job) {
    this.locator = new JobControlLocator(conf, yarn);
    this.yarn = yarn;
    this.job = job;
  }

  public ApplicationReport report() throws IOException, YarnException {
    return yarn.getApplicationReport(job.appId());
  }

  public static boolean ended(ApplicationReport r) {
    return ENDED.contains(r.getYarnApplicationState());
  }

  /** The AM's status now; null when it does not answer (not registered yet, being replaced, gone). */
  public JobStatus status() {
    try {
      if (connection == null) {
        connection = locator.connect(job.appId().toString(), RPC_TIMEOUT);
      }
      return connection.control().status();
    } catch (Exception e) {
      LOG.debug("The AM of {} did not answer: {}", job.appId(), e.toString());
      dropConnection();
      return null;
    }
  }

  /** One poll: the RM's current attempt and the AM's status. */
  FaultRecovery.Observation observe(double seconds, ApplicationReport report) {
    String attempt = report.getCurrentApplicationAttemptId() == null ? null
        : report.getCurrentApplicationAttemptId().toString();
    return new FaultRecovery.Observation(seconds, status(), attempt);
  }

  /**
   * The run's deadline passed (or the bench failed): kills the job so that the next seed has the
   * cluster, and waits up to a minute for its end.
   *
   * @return its final report; null when it did not end in that minute or could not be killed
   */
  public static ApplicationReport killAtDeadline(YarnClient yarn, SubmittedJob job, Duration runTimeout) {
    try {
      LOG.warn("{} did not end within {}; killing it", job.appId(), runTimeout);
      yarn.killApplication(job.appId());
      long until = System.nanoTime() + KILL_WAIT.toNanos();
      while (System.nanoTime() < until) {
        ApplicationReport r = yarn.getApplicationReport(job.appId());
        if (ended(r)) {
          return r;
        }
        Thread.sleep(KILL_POLL.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.warn("Could not kill {}: {}", job.appId(), e.toString());
    }
    return null;
  }

  private void dropConnection() {
    if (connection != null) {
      connection.close();
      connection = null;
    }
  }

  @Override
  public void close() {
    dropConnection();
  }
}
