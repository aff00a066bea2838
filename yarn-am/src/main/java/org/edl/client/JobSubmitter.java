package org.edl.client;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.ApplicationConstants.Environment;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.YarnClientApplication;
import org.apache.hadoop.yarn.client.util.YarnClientUtils;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.edl.am.ContainerClasspath;
import org.edl.am.ContainerCredentials;
import org.edl.am.JavaCommand;
import org.edl.am.ProfiledThroughput;
import org.edl.am.StagingLayout;
import org.edl.job.Data;
import org.edl.job.InvalidInputException;
import org.edl.job.JobSecret;
import org.edl.job.JobSpec;
import org.edl.job.Script;
import org.edl.job.WorkerEnv;
import org.edl.worker.data.DatasetLoader;
import org.edl.worker.data.SyntheticSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Submits a job: first checks everything a user can get wrong against the cluster as it is
 * (nothing is created until all of it passed), then creates the application, writes the
 * staging directory and submits the AM. If anything fails after the application was created,
 * the application is killed and the staging directory deleted: nothing is left half-submitted.
 */
public final class JobSubmitter {
  private static final Logger LOG = LoggerFactory.getLogger(JobSubmitter.class);
  /** AM container size: the AM holds no data, only clients and the fleet's book. */
  public static final int AM_MEMORY_MB = 512;
  /** The application type of every EDL job in the ResourceManager. */
  public static final String APPLICATION_TYPE = "EDL";
  /** ApplicationMaster attempts per job (client configuration); the RM caps it at its own maximum. */
  public static final String AM_MAX_ATTEMPTS = "edl.am.max-attempts";
  public static final int DEFAULT_AM_MAX_ATTEMPTS = 2;
  /**
   * The jar the AM's and workers' containers run, where it is not the one this client runs from
   * (a benchmark running from the thin jar and its library folder ships the {@code yarn jar}).
   */
  public static final String APPLICATION_JAR_KEY = "edl.client.application-jar";
  /** Window in which AM attempt failures count towards {@link #AM_MAX_ATTEMPTS}, in ms. */
  public static final String AM_ATTEMPT_FAILURES_VALIDITY_MS = "edl.am.attempt-failures-validity-ms";
  public static final long DEFAULT_AM_ATTEMPT_FAILURES_VALIDITY_MS = 10 * 60 * 1000L;

  /**
   * Application tag naming the job's guaranteed GPUs (min-workers x GPUs per worker): the EDL
   * scheduler plugin preempts only above it, and never an application without it.
   */
  public static final String MIN_GPUS_TAG = "edl-min-gpus=";
  /**
   * Application tag naming the GPUs the job asks for (workers x GPUs per worker): the plugin's
   * Elastic-Tiresias mode takes it as the job's request, as the simulator takes a trace's.
   */
  public static final String GPUS_TAG = "edl-gpus=";
  /**
   * Application tag naming the most GPUs the job grows to (max-workers x GPUs per worker). With it
   * equal to {@link #MIN_GPUS_TAG}'s, the job has one size: the Elastic-Tiresias mode pauses it
   * (warns all its containers; the job stops with a checkpoint and asks again) where Tiresias
   * passes it over, instead of letting it run.
   */
  public static final String MAX_GPUS_TAG = "edl-max-gpus=";

  private final Configuration conf;
  private final YarnClient yarn;
  private int priority;

  public JobSubmitter(Configuration conf, YarnClient yarn) {
    this.conf = conf;
    this.yarn = yarn;
  }

  /**
   * The application priority ({@code edl submit --priority}); the scheduler orders one user's
   * applications by it (capped at the cluster's maximum). Default 0.
   *
   * @throws InvalidInputException naming {@code priority} when it is negative
   */
  public JobSubmitter withPriority(int priority) {
    if (priority < 0) {
      throw new InvalidInputException("priority", priority, "must be 0 or more");
    }
    this.priority = priority;
    return this;
  }

  /**
   * Application tag giving the job's throughput curve from its profile (an {@code emulated} job
   * only): {@code edl-speedup=<GPUs per worker>:<speed-up at 1 worker>/<at 2>/...}, each relative to
   * one worker, as far as the profile measured and the tag's length allows. The plugin's
   * Elastic-Tiresias mode hands idle GPUs to the largest gain by it; a job without it counts as
   * linear. (Tags cannot change once submitted, so the curve a job measures as it runs is not here.)
   */
  public static final String SPEEDUP_TAG = "edl-speedup=";

  /**
   * The tags a job's application carries (see {@link #MIN_GPUS_TAG}, {@link #GPUS_TAG},
   * {@link #MAX_GPUS_TAG}, {@link #SPEEDUP_TAG}).
   */
  public static Set<String> applicationTags(JobSpec spec) {
    long gpus = spec.resources().gpusPerWorker();
    Set<String> tags = new HashSet<>(Set.of(MIN_GPUS_TAG + spec.scale().minWorkers() * gpus,
        GPUS_TAG + spec.scale().workers() * gpus, MAX_GPUS_TAG + spec.scale().maxWorkers() * gpus));
    speedupTag(spec).ifPresent(tags::add);
    return Set.copyOf(tags);
  }

  static Optional<String> speedupTag(JobSpec spec) {
    if (!"emulated".equals(spec.training().backend())) {
      return Optional.empty();
    }
    ProfiledThroughput curve;
    try {
      curve = ProfiledThroughput.forJob(spec);
    } catch (IOException | InvalidInputException e) {
      // The AM reports an emulated model without a profile; the tag is only a hint to the RM.
      return Optional.empty();
    }
    OptionalDouble one = curve.at(1);
    if (one.isEmpty()) {
      return Optional.empty();
    }
    StringBuilder tag = new StringBuilder(SPEEDUP_TAG).append(Math.max(1, spec.resources().gpusPerWorker())).append(':');
    String separator = "";
    for (int n = 1; n <= spec.scale().maxWorkers(); n++) {
      OptionalDouble t = curve.at(n);
      if (t.isEmpty()) {
        break;
      }
      String next = separator + String.format(Locale.ROOT, "%.2f", t.getAsDouble() / one.getAsDouble());
      if (tag.length() + next.length() > YarnConfiguration.DEFAULT_RM_APPLICATION_MAX_TAG_LENGTH) {
        break;
      }
      tag.append(next);
      separator = "/";
    }
    return Optional.of(tag.toString());
  }

  public SubmittedJob submit(JobSpec requested) throws IOException, YarnException {
    JobSpec spec = requested.validate();
    String zkConnect = conf.getTrimmed(WorkerEnv.ZK_CONNECT_KEY, "");
    if (zkConnect.isEmpty()) {
      throw new InvalidInputException(WorkerEnv.ZK_CONNECT_KEY, "", "not set; put the ZooKeeper"
          + " connect string in edl-site.xml");
    }
    String sessionTimeout = conf.getTrimmed(WorkerEnv.ZK_SESSION_TIMEOUT_KEY, "");
    if (!sessionTimeout.isEmpty() && !sessionTimeout.matches("[1-9][0-9]{0,8}")) {
      throw new InvalidInputException(WorkerEnv.ZK_SESSION_TIMEOUT_KEY, sessionTimeout,
          "must be a positive number of milliseconds");
    }
    LargestNode.check(yarn, spec);
    FileSystem fs = FileSystem.get(conf);
    spec = qualifyData(spec, fs, conf);
    if (spec.script().isSet()) {
      ScriptShipping.requireReadable(spec.script());
      String data = spec.data().source();
      if (!data.isBlank() && !SyntheticSpec.isSynthetic(data) && !isFile(data)) {
        throw new InvalidInputException("data", data, "no such file for the script (a script job's --data is one"
            + " file that every worker copies before starting the script)");
      }
    } else {
      DatasetLoader.validate(spec.data().source(), spec.data().format(), conf);
    }

    YarnClientApplication app = yarn.createApplication();
    ApplicationId appId = app.getNewApplicationResponse().getApplicationId();
    org.apache.hadoop.fs.Path staging =
        fs.makeQualified(new org.apache.hadoop.fs.Path(fs.getHomeDirectory(), StagingLayout.relativeDir(appId.toString())));
    boolean submitted = false;
    try {
      if (spec.output().isEmpty()) {
        spec = spec.toBuilder().output(fs.makeQualified(
            new org.apache.hadoop.fs.Path(fs.getHomeDirectory(), "edl/" + appId)).toString()).build();
      } else {
        spec = spec.toBuilder().output(qualifyOutput(spec.output(), fs)).build();
      }
      spec = spec.toBuilder().dataCache(dataCacheDir(spec, fs, conf, staging)).build();
      JobSecret secret = JobSecret.generate();
      Script shipped = writeStaging(fs, staging, spec);
      JobSecretFile.write(fs, staging, secret);
      ApplicationSubmissionContext context = app.getApplicationSubmissionContext();
      context.setApplicationName(spec.name());
      context.setApplicationType(APPLICATION_TYPE);
      context.setApplicationTags(applicationTags(spec));
      context.setPriority(org.apache.hadoop.yarn.api.records.Priority.newInstance(priority));
      if (!spec.queue().isEmpty()) {
        context.setQueue(spec.queue());
      }
      // A new AM attempt adopts the running workers instead of restarting them (the workers'
      // own failures are the job's business: checkpoints). The RM caps the attempts at
      // yarn.resourcemanager.am.max-attempts.
      context.setMaxAppAttempts(conf.getInt(AM_MAX_ATTEMPTS, DEFAULT_AM_MAX_ATTEMPTS));
      context.setKeepContainersAcrossApplicationAttempts(true);
      // An AM that died once a day ago says nothing about the one now: only failures within
      // this window count towards the limit.
      context.setAttemptFailuresValidityInterval(conf.getLong(AM_ATTEMPT_FAILURES_VALIDITY_MS,
          DEFAULT_AM_ATTEMPT_FAILURES_VALIDITY_MS));
      context.setResource(Resource.newInstance(AM_MEMORY_MB, 1));
      context.setAMContainerSpec(amLaunchContext(fs, staging, shipped, zkConnect, secret));
      yarn.submitApplication(context);
      submitted = true;
      LOG.info("Submitted {} with staging directory {}", appId, staging);
      return new SubmittedJob(appId, spec, secret, staging.toString());
    } finally {
      if (!submitted) {
        undo(appId, fs, staging);
      }
    }
  }

  /**
   * What a job that has ended leaves, removed by the client that followed it to its end: its
   * ZooKeeper nodes first (an AM killed by {@code yarn application -kill} could not remove them,
   * and only the job's secret can), then the staging directory and the secret in it. Its AM does
   * both when it ends normally; best effort, a failure is only logged.
   */
  public void deleteStaging(SubmittedJob job) {
    Leftovers.removeNodes(conf, job.appId().toString(), job.secret());
    org.apache.hadoop.fs.Path staging = new org.apache.hadoop.fs.Path(job.stagingDir());
    try {
      staging.getFileSystem(conf).delete(staging, true);
    } catch (IOException e) {
      LOG.warn("Could not delete the staging directory {}", staging, e);
    }
  }

  /**
   * Where the workers keep the parsed copy of a text data set: by default a directory of the
   * staging directory, deleted with the job; a directory the user named (qualified, kept for the
   * next job on the same file); none for synthetic data, which is generated faster than read.
   */
  static String dataCacheDir(JobSpec spec, FileSystem fs, Configuration conf, org.apache.hadoop.fs.Path staging)
      throws IOException {
    String cache = spec.data().cache();
    if (SyntheticSpec.isSynthetic(spec.data().source()) || cache.isEmpty() || Data.CACHE_OFF.equals(cache)) {
      return "";
    }
    if (Data.CACHE_WITH_JOB.equals(cache)) {
      return new org.apache.hadoop.fs.Path(staging, StagingLayout.DATASET_COPY_DIR).toString();
    }
    try {
      return UserPaths.qualify(cache, fs, conf).toString();
    } catch (IllegalArgumentException | org.apache.hadoop.fs.UnsupportedFileSystemException e) {
      throw new InvalidInputException("data-cache", cache, "not a valid path: " + e.getMessage());
    }
  }

  private String qualifyOutput(String output, FileSystem fs) throws IOException {
    try {
      return UserPaths.qualify(output, fs, conf).toString();
    } catch (IllegalArgumentException | org.apache.hadoop.fs.UnsupportedFileSystemException e) {
      throw new InvalidInputException("output", output, "not a valid path: " + e.getMessage());
    }
  }

  private boolean isFile(String qualified) throws IOException {
    org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(qualified);
    return p.getFileSystem(conf).isFile(p);
  }

  static JobSpec qualifyData(JobSpec spec, FileSystem fs, Configuration conf) throws IOException {
    // A script may name none (it reads its own).
    if (spec.data().source().isBlank() || SyntheticSpec.isSynthetic(spec.data().source())) {
      return spec;
    }
    try {
      // Workers may not share this client's default file system or working directory.
      return spec.toBuilder().data(UserPaths.qualify(spec.data().source(), fs, conf).toString()).build();
    } catch (IllegalArgumentException | org.apache.hadoop.fs.UnsupportedFileSystemException e) {
      throw new InvalidInputException("data", spec.data().source(), "not a valid path: " + e.getMessage());
    }
  }

  /**
   * The staging directory, readable by its owner only (it holds the job secret). Its parents
   * (`/user`, the home directory, `.edl`) are made first with the file system's default
   * permission: HDFS gives the parents a {@code mkdirs} creates the new directory's permission,
   * and a first job on a fresh cluster made `/user` private to its submitter.
   */
  static void makeStagingDirectory(FileSystem fs, org.apache.hadoop.fs.Path staging) throws IOException {
    fs.mkdirs(staging.getParent());
    fs.mkdirs(staging, new FsPermission((short) 0700));
  }

  /** Writes the staging directory; returns the script as shipped (its environment's URI). */
  private Script writeStaging(FileSystem fs, org.apache.hadoop.fs.Path staging, JobSpec spec)
      throws IOException {
    makeStagingDirectory(fs, staging);
    JobSpec written = spec.script().isSet() ? ScriptShipping.ship(fs, conf, staging, spec) : spec;
    try (OutputStream out = fs.create(new org.apache.hadoop.fs.Path(staging, StagingLayout.JOB_SPEC))) {
      written.write(out);
    }
    if (isEmbeddedCluster()) {
      // The embedded cluster runs on this machine with ephemeral ports: containers get this
      // JVM's classpath and configuration instead of a jar and the nodes' own conf.
      Configuration shipped = new Configuration(conf);
      shipped.set(ContainerClasspath.LOCAL_CLASSPATH_KEY, embeddedClasspath());
      for (String name : StagingLayout.CLUSTER_CONF) {
        try (OutputStream out = fs.create(new org.apache.hadoop.fs.Path(staging, name))) {
          shipped.writeXml(out);
        }
      }
    } else {
      fs.copyFromLocalFile(new org.apache.hadoop.fs.Path(ApplicationJar.toShip(conf.getTrimmed(APPLICATION_JAR_KEY, ""),
              JobSubmitter.class).toUri()),
          new org.apache.hadoop.fs.Path(staging, StagingLayout.APP_JAR));
    }
    return written.script();
  }

  /** The AM's container; under --torchrun it runs the rendezvous store on the job's Python environment. */
  private ContainerLaunchContext amLaunchContext(FileSystem fs, org.apache.hadoop.fs.Path staging, Script script,
      String zkConnect, JobSecret secret) throws IOException {
    Configuration forClasspath = new Configuration(conf);
    if (isEmbeddedCluster()) {
      forClasspath.set(ContainerClasspath.LOCAL_CLASSPATH_KEY, embeddedClasspath());
    }
    Map<String, String> env = new HashMap<>();
    env.put(Environment.CLASSPATH.name(), ContainerClasspath.of(forClasspath));
    env.put(StagingLayout.STAGING_DIR_ENV, staging.toUri().toString());
    env.put(WorkerEnv.ZK_CONNECT, zkConnect);
    String sessionTimeout = conf.getTrimmed(WorkerEnv.ZK_SESSION_TIMEOUT_KEY, "");
    if (!sessionTimeout.isEmpty()) {
      env.put(WorkerEnv.ZK_SESSION_TIMEOUT_MS, sessionTimeout); // the AM hands it on to the workers
    }

    Credentials credentials = new Credentials();
    ContainerCredentials.putSecret(credentials, secret);
    if (UserGroupInformation.isSecurityEnabled()) {
      String renewer = YarnClientUtils.getRmPrincipal(conf);
      if (renewer == null || renewer.isEmpty()) {
        throw new IOException("security is on but no ResourceManager principal is configured");
      }
      fs.addDelegationTokens(renewer, credentials);
    }
    return ContainerLaunchContext.newInstance(script.torchrun()
        ? StagingLayout.workerResources(staging.toUri(), script, conf) : StagingLayout.localResources(staging.toUri(), conf),
        env, JavaCommand.of(StagingLayout.AM_MAIN_CLASS, AM_MEMORY_MB), null,
        ContainerCredentials.serialize(credentials), null);
  }

  private boolean isEmbeddedCluster() {
    return conf.getBoolean(YarnConfiguration.IS_MINI_YARN_CLUSTER, false);
  }

  /**
   * What the embedded cluster's containers (the AM's and, through the shipped configuration, the
   * workers') run on: this JVM's class path, with the edl-am jar in front when RunJar keeps it off
   * that class path.
   */
  private static String embeddedClasspath() throws IOException {
    return ApplicationJar.withLocalClasspath(LocalClasspath.absolute());
  }

  private void undo(ApplicationId appId, FileSystem fs, org.apache.hadoop.fs.Path staging) {
    try {
      yarn.killApplication(appId);
    } catch (Exception e) {
      LOG.debug("Could not kill {} (it may never have been submitted)", appId, e);
    }
    try {
      fs.delete(staging, true);
    } catch (IOException e) {
      LOG.warn("Could not delete the staging directory {}", staging, e);
    }
  }
}
