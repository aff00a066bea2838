package org.edl.bench.soak;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.zookeeper.KeeperException;
import org.edl.bench.ContainerProcesses;
import org.edl.bench.ProcessProbe;
import org.edl.client.SubmittedJob;
import org.edl.thrift.JobStatus;
import org.edl.thrift.WorkerPlacement;
import org.edl.worker.runtime.Timeline;

/** One {@link SoakSample}: the job's processes, its ZooKeeper nodes and its HDFS files, read from outside. */
final class SoakProbe {
  private static final String ZK_ROOT = "/edl";

  private final Configuration conf;
  private final YarnClient yarn;
  private final CuratorFramework zk;
  private final SubmittedJob job;
  private final ContainerProcesses containers = new ContainerProcesses();
  private final ProcessProbe probe = new ProcessProbe();

  SoakProbe(Configuration conf, YarnClient yarn, CuratorFramework zk, SubmittedJob job) {
    this.conf = conf;
    this.yarn = yarn;
    this.zk = zk;
    this.job = job;
  }

  SoakSample sample(int operations, JobStatus status) throws Exception {
    ProcessProbe.Reading am = probe.read(amPid());
    ProcessProbe.Reading cluster = probe.self();
    int threadsMax = -1;
    int fdsMax = -1;
    double heapMax = -1;
    List<WorkerPlacement> placements = status.isSetPlacements() ? status.getPlacements() : List.of();
    for (WorkerPlacement p : placements) {
      ProcessProbe.Reading w;
      try {
        w = probe.read(containers.find(p.getContainer()).pid());
      } catch (ContainerProcesses.NotFoundException e) {
        w = ProcessProbe.Reading.GONE;
      }
      threadsMax = Math.max(threadsMax, w.threads());
      fdsMax = Math.max(fdsMax, w.fds());
      heapMax = Math.max(heapMax, w.liveHeapMb());
    }
    FileSystem fs = FileSystem.get(conf);
    long timelines = files(fs, new Path(job.spec().output(), Timeline.DIRECTORY));
    long hdfs = files(fs, new Path(job.stagingDir())) + files(fs, new Path(job.spec().output())) - timelines;
    return new SoakSample(operations, am.threads(), am.fds(), cluster.threads(), threadsMax, nodes(ZK_ROOT), hdfs,
        am.liveHeapMb(), cluster.fds(), cluster.liveHeapMb(), fdsMax, heapMax, timelines,
        containers.javaProcessesOf(job.appId().toString()).size(),
        status.isSetProgress() ? status.getProgress().getWorkers() : -1,
        status.isSetProgress() ? status.getProgress().getStep() : -1);
  }

  private long amPid() throws Exception {
    ApplicationReport report = yarn.getApplicationReport(job.appId());
    String am = yarn.getApplicationAttemptReport(report.getCurrentApplicationAttemptId()).getAMContainerId().toString();
    return containers.find(am).pid();
  }

  /** Nodes under {@code path}, itself included; a node deleted while counting counts as gone. */
  private int nodes(String path) throws Exception {
    List<String> children;
    try {
      children = zk.getChildren().forPath(path);
    } catch (KeeperException.NoNodeException e) {
      return 0;
    }
    int n = 1;
    for (String c : children) {
      n += nodes(path + "/" + c);
    }
    return n;
  }

  private static long files(FileSystem fs, Path dir) throws IOException {
    try {
      return fs.getContentSummary(dir).getFileCount();
    } catch (FileNotFoundException e) {
      return 0;
    }
  }
}
