package org.edl.devtools;

import java.io.OutputStream;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.edl.cli.SubmitCommand;
import org.edl.cluster.EmbeddedCluster;
import org.edl.worker.data.SyntheticData;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code edl demo}: the whole system on this machine, telling what it is for. Starts the
 * embedded cluster (2 nodes x 4 GPUs), puts a synthetic LIBSVM data set on its HDFS, and runs
 * {@link DemoStory}: an elastic MLP job starts small and grows into the idle GPUs, survives a
 * killed worker, shrinks when another user's job arrives and grows back; then it shuts the
 * cluster down. Hadoop's own messages go to the log file, not the console.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Start an embedded YARN + HDFS + ZooKeeper cluster and show an elastic job on it: it starts"
        + " with 2 workers, grows into idle GPUs, survives a killed worker, shrinks for another user's job and"
        + " grows back.")
public final class DemoCommand implements Callable<Integer> {
  static final String DATA_SPEC = "synthetic:samples=8192,features=32,classes=4,seed=11";

  @Spec
  CommandSpec spec;

  @Option(names = "--steps", defaultValue = "8000", description = "Mini-batches the elastic job trains"
      + " (default: ${DEFAULT-VALUE}); the story's acts happen while it trains.")
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
      int exit;
      try (YarnClient yarn = SubmitCommand.startYarnClient(conf)) {
        exit = new DemoStory(conf, yarn, out).run(data.toString(), steps);
      }
      out.println("Stopping the embedded cluster...");
      out.flush();
      return exit;
    } finally {
      out.println("Done.");
      out.flush();
    }
  }
}
