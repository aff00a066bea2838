package org.edl.testing;

import java.io.IOException;
import java.util.function.UnaryOperator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.edl.cluster.EmbeddedCluster;
import org.edl.cluster.EmbeddedClusterBuilder;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The embedded cluster (YARN with the EDL scheduler plugin, HDFS, ZooKeeper; {@link
 * EmbeddedCluster}) for one test class, with a started {@link YarnClient} and the cluster's
 * {@link FileSystem}: {@code @RegisterExtension static final YarnCluster CLUSTER = new
 * YarnCluster();}. The default is what the end-to-end tests run on, 2 nodes x 4 GPUs; {@code new
 * YarnCluster(b -> b.preemptionGraceMs(20_000))} changes the builder. One cluster per class:
 * surefire runs every test class in a JVM of its own (ResourceUtils keeps JVM-wide state).
 */
public final class YarnCluster implements BeforeAllCallback, AfterAllCallback {
  private final UnaryOperator<EmbeddedClusterBuilder> settings;
  private EmbeddedCluster cluster;
  private YarnClient yarn;

  public YarnCluster() {
    this(UnaryOperator.identity());
  }

  public YarnCluster(UnaryOperator<EmbeddedClusterBuilder> settings) {
    this.settings = settings;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    cluster = settings.apply(EmbeddedCluster.builder().nodes(2).gpusPerNode(4)).build().start();
    yarn = YarnClient.createYarnClient();
    yarn.init(cluster.configuration());
    yarn.start();
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    try {
      if (yarn != null) {
        yarn.close();
      }
    } finally {
      if (cluster != null) {
        cluster.close();
      }
      yarn = null;
      cluster = null;
    }
  }

  public EmbeddedCluster cluster() {
    if (cluster == null) {
      throw new IllegalStateException("the embedded cluster runs only while its test class does");
    }
    return cluster;
  }

  /** A client configuration for this cluster (the one `edl submit` would read). */
  public Configuration configuration() {
    return cluster().configuration();
  }

  /** A started client of this cluster's ResourceManager, closed after the class. */
  public YarnClient yarn() {
    cluster();
    return yarn;
  }

  public FileSystem fileSystem() throws IOException {
    return FileSystem.get(configuration());
  }

  /** {@code relative} in the test user's HDFS home directory, fully qualified. */
  public Path home(String relative) throws IOException {
    FileSystem fs = fileSystem();
    return fs.makeQualified(new Path(fs.getHomeDirectory(), relative));
  }

  /** The application's report once it has ended (FINISHED, FAILED or KILLED). */
  public org.apache.hadoop.yarn.api.records.ApplicationReport awaitEnd(
      org.apache.hadoop.yarn.api.records.ApplicationId appId) {
    return Await.until("the job to end", () -> yarn().getApplicationReport(appId),
        r -> java.util.EnumSet.of(org.apache.hadoop.yarn.api.records.YarnApplicationState.FINISHED,
            org.apache.hadoop.yarn.api.records.YarnApplicationState.FAILED,
            org.apache.hadoop.yarn.api.records.YarnApplicationState.KILLED).contains(r.getYarnApplicationState()));
  }
}
