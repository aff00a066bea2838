package org.edl.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.fs.FileUtil;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real HDFS (Hadoop's {@link MiniDFSCluster}: a NameNode and the given number of DataNodes,
 * in-process) for one test class: {@code @RegisterExtension static final HdfsCluster HDFS = new
 * HdfsCluster(1);}. Its storage lives in a temporary directory deleted after the class.
 */
public final class HdfsCluster implements BeforeAllCallback, AfterAllCallback {
  private final int dataNodes;
  private Path baseDir;
  private MiniDFSCluster cluster;

  public HdfsCluster(int dataNodes) {
    this.dataNodes = dataNodes;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    baseDir = Files.createTempDirectory("edl-minidfs-");
    cluster = new MiniDFSCluster.Builder(new Configuration(), baseDir.toFile())
        .numDataNodes(dataNodes)
        .build();
    cluster.waitActive();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (cluster != null) {
      cluster.shutdown();
      cluster = null;
    }
    if (baseDir != null) {
      FileUtil.fullyDelete(baseDir.toFile());
    }
  }

  /** The cluster itself, to stop or restart DataNodes. */
  public MiniDFSCluster cluster() {
    if (cluster == null) {
      throw new IllegalStateException("the HDFS cluster runs only while its test class does");
    }
    return cluster;
  }

  /** A configuration whose default file system is this HDFS. */
  public Configuration configuration() {
    return new Configuration(cluster().getConfiguration(0));
  }

  public FileSystem fileSystem() throws IOException {
    return cluster().getFileSystem();
  }

  /** {@code hdfs://host:port/<path>} on this cluster. */
  public String uri(String path) {
    return cluster().getURI().toString() + (path.startsWith("/") ? path : "/" + path);
  }
}
