package org.edl.devtools;

import java.io.OutputStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.edl.cli.SubmitCommand;
import org.edl.client.JobSubmitter;
import org.edl.client.ProgressFollower;
import org.edl.client.SubmittedJob;
import org.edl.cluster.EmbeddedCluster;
import org.edl.job.JobSpec;
import org.edl.thrift.BatchRule;
import org.edl.worker.data.SyntheticData;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code edl demo}: the whole system on this machine. Starts the embedded cluster (2 nodes x 4
 * GPUs), puts a synthetic LIBSVM data set on its HDFS, submits a 4-worker MLP job through the
 * same submitter as {@code edl submit}, follows it, shows where the model and metrics landed,
 * and shuts the cluster down.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Start an embedded YARN + HDFS + ZooKeeper cluster and train a 4-worker MLP on it.")
public final class DemoCommand implements Callable<Integer> {
  static final String DATA_SPEC = "synthetic:samples=8192,features=32,classes=4,seed=11";

  @Spec
  CommandSpec spec;

  @Option(names = "--workers", defaultValue = "4", description = "Workers (default: ${DEFAULT-VALUE}).")
  int workers;
  @Option(names = "--steps", defaultValue = "300", description = "Mini-batches to train (default: ${DEFAULT-VALUE}).")
  long steps;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    out.println("Starting the embedded cluster (2 nodes x 4 yarn.io/gpu, HDFS, ZooKeeper)...");
    out.flush();
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(2).gpusPerNode(4).build().start()) {
      Configuration conf = cluster.configuration();
      out.println("Cluster up; client configuration in " + cluster.confDir()
          + " (ResourceManager UI " + cluster.resourceManagerWebUrl() + ")");
      FileSystem fs = FileSystem.get(conf);
      Path data = fs.makeQualified(new Path(fs.getHomeDirectory(), "edl-demo/train.libsvm"));
      try (OutputStream o = fs.create(data, true)) {
        SyntheticData.writeLibsvm(DATA_SPEC, o);
      }
      out.println("Wrote " + DATA_SPEC.substring("synthetic:".length()) + " as LIBSVM to " + data);
      JobSpec spec = JobSpec.builder().name("edl-demo").model("mlp").data(data.toString()).format("libsvm")
          .workers(workers).minWorkers(workers).maxWorkers(workers).gpusPerWorker(1).workerMemoryMb(768)
          .workerVcores(1).steps(steps).batchSize(256).batchRule(BatchRule.FIXED_GLOBAL).learningRate(0.1)
          .hidden(32).seed(1).backend("cpu").build();
      int exit;
      try (YarnClient yarn = SubmitCommand.startYarnClient(conf)) {
        SubmittedJob job = new JobSubmitter(conf, yarn).submit(spec);
        exit = new ProgressFollower(yarn, out, Duration.ofSeconds(1)).follow(job);
        listOutput(fs, new Path(job.spec().output()), out);
      }
      out.println("Stopping the embedded cluster...");
      out.flush();
      return exit;
    } finally {
      out.println("Done.");
      out.flush();
    }
  }

  private static void listOutput(FileSystem fs, Path output, PrintWriter out) {
    try {
      if (!fs.exists(output)) {
        out.println("Nothing was written to " + output);
        return;
      }
      out.println("In " + output + ":");
      for (FileStatus f : fs.listStatus(output)) {
        out.println("  " + f.getPath().getName() + "  (" + f.getLen() + " bytes)");
      }
    } catch (java.io.IOException e) {
      out.println("Could not list " + output + ": " + e.getMessage());
    }
  }
}
