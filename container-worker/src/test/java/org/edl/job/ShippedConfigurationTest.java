package org.edl.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A container reads the configuration shipped into its working directory, not the one a directory
 * on its class path holds: on the embedded cluster that class path carries the submitting client's
 * HADOOP_CONF_DIR (bin/edl puts it there), whose files lack what the client added for the job.
 */
class ShippedConfigurationTest {
  @Test
  void theShippedFilesAreTheWholeConfigurationWhateverTheClassPathHolds(@TempDir Path dir) throws Exception {
    Path work = Files.createDirectories(dir.resolve("container"));
    Configuration shipped = new Configuration(false);
    shipped.set("yarn.resourcemanager.address", "localhost:1111");
    shipped.set("edl.container.local-classpath", "/repo/edl-am.jar");
    for (String name : ShippedConfiguration.FILES) {
      write(work.resolve(name), shipped);
    }
    Path clientConfDir = clientConfDir(dir);

    Configuration loaded = withClassPath(clientConfDir, () -> ShippedConfiguration.load(work));

    assertEquals("localhost:1111", loaded.get("yarn.resourcemanager.address"));
    assertEquals("/repo/edl-am.jar", loaded.get("edl.container.local-classpath"));
    assertNull(loaded.get("only.in.the.client.conf"), "nothing from the class path's configuration directory");
  }

  @Test
  void whereNothingWasShippedTheNodesOwnConfigurationIsRead(@TempDir Path dir) throws Exception {
    Path work = Files.createDirectories(dir.resolve("container"));
    Path nodeConfDir = clientConfDir(dir);

    Configuration loaded = withClassPath(nodeConfDir, () -> ShippedConfiguration.load(work));

    assertEquals("from-the-class-path", loaded.get("only.in.the.client.conf"));
  }

  /** A HADOOP_CONF_DIR whose core-site.xml and yarn-site.xml say something else. */
  private static Path clientConfDir(Path dir) throws Exception {
    Path conf = Files.createDirectories(dir.resolve("hadoop-conf"));
    Configuration other = new Configuration(false);
    other.set("yarn.resourcemanager.address", "localhost:2222");
    other.set("only.in.the.client.conf", "from-the-class-path");
    write(conf.resolve("core-site.xml"), other);
    write(conf.resolve("yarn-site.xml"), other);
    return conf;
  }

  /** Hadoop's Configuration finds its default resources through the thread's context class loader. */
  private static Configuration withClassPath(Path dir, Supplier<Configuration> load) throws Exception {
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, previous)) {
      thread.setContextClassLoader(loader);
      Configuration conf = load.get();
      conf.get("force.loading"); // resources are read lazily, with the loader of construction time
      return conf;
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  private static void write(Path file, Configuration conf) throws Exception {
    try (OutputStream out = Files.newOutputStream(file)) {
      conf.writeXml(out);
    }
  }
}
