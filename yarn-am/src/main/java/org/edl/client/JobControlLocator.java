package org.edl.client;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Duration;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.thrift.transport.TTransportException;
import org.edl.am.StagingLayout;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSecret;
import org.edl.job.rpc.AuthenticationException;
import org.edl.job.rpc.RpcClient;

/**
 * Finds a running job's job-control endpoint the way {@code yarn} tools find an AM: the
 * ResourceManager's application report names the AM's host and RPC port. The job secret comes
 * from the job's staging directory, which only the submitting user (and whoever may read that
 * user's files, such as the HDFS superuser) can read.
 */
public final class JobControlLocator {
  /** The field name errors about the application id use; the CLI calls it APP_ID. */
  public static final String FIELD = "application";

  private final Configuration conf;
  private final YarnClient yarn;

  public JobControlLocator(Configuration conf, YarnClient yarn) {
    this.conf = conf;
    this.yarn = yarn;
  }

  /**
   * @param timeout connect, handshake and per-call read timeout
   * @throws InvalidInputException the id is malformed, unknown, not an EDL job, or not running
   * @throws JobControlException   no readable secret, the AM refused it, or it cannot be reached
   */
  public JobControlConnection connect(String appIdText, Duration timeout) throws IOException, YarnException {
    ApplicationId appId = parse(appIdText);
    ApplicationReport report = reportOf(appId);
    requireRunningEdlJob(report);
    Path secretFile = JobSecretFile.in(stagingDirOf(report));
    JobSecret secret = readSecret(report, secretFile);
    String endpoint = report.getHost() + ":" + report.getRpcPort();
    try {
      return new JobControlConnection(appId,
          RpcClient.open(report.getHost(), report.getRpcPort(), secret, timeout));
    } catch (AuthenticationException e) {
      throw new JobControlException("the ApplicationMaster of " + appId + " at " + endpoint
          + " refused the job secret from " + secretFile + " (" + e.getMessage() + "); the file"
          + " does not hold this job's secret", e);
    } catch (TTransportException e) {
      throw new JobControlException("cannot reach the ApplicationMaster of " + appId + " at "
          + endpoint + ": " + e.getMessage(), e);
    }
  }

  public static ApplicationId parse(String text) {
    try {
      return ApplicationId.fromString(text.strip());
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException(FIELD, text, "not an application id; expected"
          + " application_<cluster timestamp>_<sequence>, as `yarn application -list` prints it");
    }
  }

  private ApplicationReport reportOf(ApplicationId appId) throws IOException, YarnException {
    try {
      return yarn.getApplicationReport(appId);
    } catch (ApplicationNotFoundException e) {
      throw new InvalidInputException(FIELD, appId, "unknown application " + appId + ": the"
          + " ResourceManager has no record of it (it forgets finished applications after a while)");
    }
  }

  /** What may be controlled: a RUNNING EDL application whose AM registered an RPC port. */
  public static void requireRunningEdlJob(ApplicationReport report) {
    ApplicationId appId = report.getApplicationId();
    if (!JobSubmitter.APPLICATION_TYPE.equals(report.getApplicationType())) {
      throw new InvalidInputException(FIELD, appId, "application " + appId + " is not an EDL job"
          + " (type " + report.getApplicationType() + ")");
    }
    YarnApplicationState state = report.getYarnApplicationState();
    String is = "application " + appId + " is " + state + " (" + report.getFinalApplicationStatus()
        + "), not running";
    switch (state) {
      case RUNNING -> {
        if (report.getRpcPort() <= 0 || report.getHost() == null || "N/A".equals(report.getHost())) {
          throw new InvalidInputException(FIELD, appId, "application " + appId + " is RUNNING but"
              + " its ApplicationMaster has not published a job-control endpoint yet; try again");
        }
      }
      case NEW, NEW_SAVING, SUBMITTED, ACCEPTED -> throw new InvalidInputException(FIELD, appId,
          is + ": it has not started yet; try again when `yarn application -status " + appId
              + "` says RUNNING");
      default -> throw new InvalidInputException(FIELD, appId, is + ": it has ended"
          + (state == YarnApplicationState.FINISHED ? "" : diagnostics(report)));
    }
  }

  /**
   * The submitting user's staging directory for the job. Hadoop home directories are
   * {@code <prefix>/<user>}; the submitter's is this user's home when they are the same person,
   * and its sibling otherwise (an administrator controlling someone else's job).
   */
  private Path stagingDirOf(ApplicationReport report) throws IOException {
    FileSystem fs = FileSystem.get(conf);
    Path home = fs.getHomeDirectory();
    String me = UserGroupInformation.getCurrentUser().getShortUserName();
    String submitter = report.getUser();
    if (submitter != null && !submitter.isEmpty() && !submitter.equals(me) && home.getParent() != null) {
      home = new Path(home.getParent(), submitter);
    }
    return fs.makeQualified(new Path(home, StagingLayout.relativeDir(report.getApplicationId().toString())));
  }

  private JobSecret readSecret(ApplicationReport report, Path secretFile) throws IOException, YarnException {
    try {
      return JobSecretFile.read(secretFile.getFileSystem(conf), secretFile.getParent());
    } catch (IOException e) {
      if (e instanceof FileNotFoundException) {
        // The AM deletes the staging directory, secret and all, as its last act before YARN sees it end.
        ApplicationReport now = reportOf(report.getApplicationId());
        if (now.getYarnApplicationState() != YarnApplicationState.RUNNING
            || now.getFinalApplicationStatus() != FinalApplicationStatus.UNDEFINED) {
          throw new InvalidInputException(FIELD, report.getApplicationId(), "application "
              + report.getApplicationId() + " is ending (" + now.getFinalApplicationStatus() + "): its"
              + " ApplicationMaster has finished and removed the job's secret; `yarn application -status "
              + report.getApplicationId() + "` shows the outcome" + diagnostics(now));
        }
      }
      String problem = e instanceof FileNotFoundException ? "not found" : firstLine(e.getMessage());
      throw new JobControlException("cannot read the job secret of " + report.getApplicationId()
          + " at " + secretFile + " (" + problem + "): only the user who submitted the job ("
          + report.getUser() + "), or an administrator who can read that path, can control it", e);
    }
  }

  private static String diagnostics(ApplicationReport report) {
    String d = report.getDiagnostics() == null ? "" : oneLine(report.getDiagnostics());
    return d.isEmpty() ? "" : " (" + (d.length() > 200 ? d.substring(0, 200) + "..." : d) + ")";
  }

  /** An HDFS permission error carries the NameNode's stack trace after its first line. */
  private static String firstLine(String s) {
    return s == null ? "" : s.strip().lines().findFirst().orElse("").strip();
  }

  private static String oneLine(String s) {
    return s == null ? "" : s.strip().replaceAll("\\s*\\R\\s*", " ");
  }
}
