package org.edl.cluster.hosts;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.edl.am.JvmOptions;
import org.edl.client.LocalClasspath;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One daemon of the multi-host cluster: a JVM started from the daemon's own main class inside its
 * host's network namespace, as an admin's scripts start it, with its configuration directory first
 * on its class path (as {@code HADOOP_CONF_DIR} is) and its output in a log file of its own.
 */
final class HostDaemon implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HostDaemon.class);
  private static final Duration STOP_GRACE = Duration.ofSeconds(20);

  private final String name;
  private final SimulatedHost host;
  private final Path log;
  private final Process process;

  private HostDaemon(String name, SimulatedHost host, Path log, Process process) {
    this.name = name;
    this.host = host;
    this.log = log;
    this.process = process;
  }

  /**
   * Starts {@code mainClass args} in {@code host}.
   *
   * @param confDir first on the class path: the daemon's {@code *-site.xml} and log4j settings
   * @param heap the daemon's {@code -Xmx}
   */
  static HostDaemon start(String name, SimulatedHost host, Path confDir, Path logDir, String heap, String mainClass,
      List<String> args) throws IOException {
    return start(name, host, confDir, logDir, heap, mainClass, args, false);
  }

  /** As above; with {@code ownSharedMemory}, the daemon and what it starts see a {@code /dev/shm} of the host's own. */
  static HostDaemon start(String name, SimulatedHost host, Path confDir, Path logDir, String heap, String mainClass,
      List<String> args, boolean ownSharedMemory) throws IOException {
    Files.createDirectories(logDir);
    Path log = logDir.resolve(name + ".log");
    List<String> java = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + heap, "-XX:+UseSerialGC", "-Djava.net.preferIPv4Stack=true",
        "-Dlog4j.configuration=file:" + confDir.resolve("log4j.properties")));
    java.addAll(JvmOptions.addOpens());
    java.addAll(List.of("-cp", confDir + File.pathSeparator + LocalClasspath.absolute(), mainClass));
    java.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(ownSharedMemory ? host.commandWithOwnSharedMemory(java) : host.command(java))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    // As Hadoop's scripts export it: a NodeManager hands it to its containers, whose class path
    // (yarn.application.classpath) starts with it, so an AM finds its cluster as on any node.
    pb.environment().put("HADOOP_CONF_DIR", confDir.toString());
    Process process = pb.start();
    LOG.debug("Started {} on {} ({}), pid {}, log {}", name, host.name(), host.address(), process.pid(), log);
    return new HostDaemon(name, host, log, process);
  }

  /** Runs {@code mainClass args} in {@code host} to its end (a NameNode's format); fails naming its log. */
  static void runToEnd(String name, SimulatedHost host, Path confDir, Path logDir, String mainClass, List<String> args,
      Duration timeout) throws IOException {
    HostDaemon tool = start(name, host, confDir, logDir, "256m", mainClass, args);
    try {
      if (!tool.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        tool.close();
        throw new IOException(name + " did not finish within " + timeout.toSeconds() + " s; see " + tool.log);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      tool.close();
      throw new IOException(name + ": interrupted", e);
    }
    if (tool.process.exitValue() != 0) {
      throw new IOException(name + " exited " + tool.process.exitValue() + "; see " + tool.log);
    }
  }

  String name() {
    return name;
  }

  SimulatedHost host() {
    return host;
  }

  Path log() {
    return log;
  }

  boolean alive() {
    return process.isAlive();
  }

  /** Whether the daemon accepts connections at {@code port} of its host's address. */
  boolean listens(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host.address(), port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** SIGTERM, as an admin's stop script sends it; SIGKILL after a grace period. */
  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    List<ProcessHandle> children = process.descendants().toList();
    process.destroy();
    try {
      if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("{} on {} did not stop within {} s of SIGTERM; killing it", name, host.name(), STOP_GRACE.toSeconds());
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
  }
}
