package org.edl.cluster.hosts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Hadoop cluster of several hosts on one machine: every host a network namespace on a bridge of
 * its own ({@link HostNetwork}), and Hadoop's own daemons started from their main classes as
 * separate processes there, configured from the shipped {@code conf/} files ({@link
 * HostSiteFiles}): a ZooKeeper ensemble, a NameNode, a DataNode on every host, a ResourceManager
 * with the EDL scheduler plugin and a NodeManager on every host ({@link MultiHostLayout}). Clients
 * on this machine reach it through {@link #confDir()}, as through any cluster's
 * {@code HADOOP_CONF_DIR}. {@link #close()} stops the daemons and removes the network (and the
 * directory, when it made one).
 */
public final class MultiHostCluster implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MultiHostCluster.class);
  private static final String NAMENODE = "org.apache.hadoop.hdfs.server.namenode.NameNode";
  private static final String DATANODE = "org.apache.hadoop.hdfs.server.datanode.DataNode";
  private static final String RESOURCEMANAGER = "org.apache.hadoop.yarn.server.resourcemanager.ResourceManager";
  private static final String NODEMANAGER = "org.apache.hadoop.yarn.server.nodemanager.NodeManager";
  private static final String ZOOKEEPER = "org.apache.zookeeper.server.quorum.QuorumPeerMain";

  private final Builder settings;
  private final Deque<HostDaemon> daemons = new ArrayDeque<>();
  private HostNetwork network;
  private MultiHostLayout layout;
  private Path dir;
  private boolean ownsDir;
  private Path confDir;

  private MultiHostCluster(Builder settings) {
    this.settings = settings;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Makes the network, starts every daemon and waits until HDFS and YARN see all their hosts. */
  public MultiHostCluster start() throws IOException {
    long started = System.nanoTime();
    try {
      network = HostNetwork.create(settings.hosts, settings.linkGbit);
      if (settings.dir != null) {
        dir = Files.createDirectories(settings.dir.toAbsolutePath());
      } else {
        dir = Files.createTempDirectory("edl-hosts-").toAbsolutePath();
        ownsDir = true;
      }
      Path fairScheduler = dir.resolve("fair-scheduler.xml");
      Files.copy(settings.shippedConf.resolve("fair-scheduler.xml"), fairScheduler, StandardCopyOption.REPLACE_EXISTING);
      layout = new MultiHostLayout(network.hosts(), settings.masterHosts, settings.hostMemoryMb,
          settings.hostVcores, new GpuSupply(settings.gpusPerHost), fairScheduler);
      startDaemons(new HostSiteFiles(settings.shippedConf, layout, settings.yarnSettings,
          settings.hdfsSettings));
      new ClusterReadiness(this).await(settings.startTimeout);
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
    LOG.info("Multi-host cluster up in {} s: {} host(s) {}, links capped at {} Gbit/s; client configuration in {}",
        Duration.ofNanos(System.nanoTime() - started).toSeconds(), settings.hosts,
        network.hosts().stream().map(SimulatedHost::address).toList(), settings.linkGbit, confDir);
    return this;
  }

  private void startDaemons(HostSiteFiles files) throws IOException {
    Map<SimulatedHost, Path> conf = new LinkedHashMap<>();
    for (SimulatedHost host : layout.hosts()) {
      conf.put(host, files.writeHost(host, hostDir(host)));
    }
    confDir = files.writeClient(dir.resolve("conf"));
    Path logs = dir.resolve("logs");
    List<SimulatedHost> zk = layout.zooKeeper();
    for (int i = 0; i < zk.size(); i++) {
      SimulatedHost host = zk.get(i);
      Path cfg = ZooKeeperEnsembleFiles.write(hostDir(host).resolve("zookeeper"), i + 1, host, zk,
          HostSiteFiles.ZK_CLIENT_PORT);
      daemons.push(HostDaemon.start("zookeeper-" + host.name(), host, conf.get(host), logs, "128m", ZOOKEEPER,
          List.of(cfg.toString())));
    }
    SimulatedHost nn = layout.nameNode();
    HostDaemon.runToEnd("namenode-format", nn, conf.get(nn), logs, NAMENODE,
        List.of("-format", "-force", "-nonInteractive"), Duration.ofMinutes(2));
    daemons.push(HostDaemon.start("namenode", nn, conf.get(nn), logs, "256m", NAMENODE, List.of()));
    SimulatedHost rm = layout.resourceManager();
    daemons.push(HostDaemon.start("resourcemanager", rm, conf.get(rm), logs, "512m", RESOURCEMANAGER, List.of()));
    for (SimulatedHost host : layout.workerHosts()) {
      daemons.push(HostDaemon.start("datanode-" + host.name(), host, conf.get(host), logs, "192m", DATANODE, List.of()));
      daemons.push(HostDaemon.start("nodemanager-" + host.name(), host, conf.get(host), logs, "384m", NODEMANAGER,
          List.of(), true));
    }
  }

  private Path hostDir(SimulatedHost host) {
    return dir.resolve("hosts").resolve(host.name());
  }

  /** {@code host}'s NodeManager log directory: {@code <application>/<container>/stdout} and the rest. */
  public Path nodeManagerLogs(SimulatedHost host) {
    return hostDir(host).resolve(HostSiteFiles.NM_LOGS);
  }

  /** The client configuration directory: point {@code HADOOP_CONF_DIR} here. */
  public Path confDir() {
    return confDir;
  }

  public List<SimulatedHost> hosts() {
    return network.hosts();
  }

  /** The hosts with a DataNode and a NodeManager (all but the dedicated master hosts). */
  public List<SimulatedHost> workerHosts() {
    return layout.workerHosts();
  }

  /** The host of the NameNode, the ResourceManager and the first ZooKeeper server. */
  public SimulatedHost masterHost() {
    return layout.nameNode();
  }

  /** The hosts that run a ZooKeeper server: losing more than one of three ends the ensemble's quorum. */
  public List<SimulatedHost> zooKeeperHosts() {
    return layout.zooKeeper();
  }

  public HostNetwork network() {
    return network;
  }

  public Path dir() {
    return dir;
  }

  public String zooKeeperConnect() {
    return layout.zooKeeperConnect(HostSiteFiles.ZK_CLIENT_PORT);
  }

  public String hdfsUri() {
    return "hdfs://" + layout.nameNode().address() + ":" + HostSiteFiles.NAMENODE_PORT;
  }

  public String resourceManagerWebUrl() {
    return "http://" + layout.resourceManager().address() + ":" + HostSiteFiles.RM_WEB_PORT;
  }

  int gpusPerHost() {
    return settings.gpusPerHost;
  }

  List<HostDaemon> daemons() {
    return List.copyOf(daemons);
  }

  /** The client configuration, as {@code new YarnConfiguration()} reads it with {@link #confDir()} on the class path. */
  public YarnConfiguration configuration() {
    YarnConfiguration conf = new YarnConfiguration();
    for (String file : HostSiteFiles.fileNames()) {
      conf.addResource(new org.apache.hadoop.fs.Path(confDir.resolve(file).toUri()));
    }
    return conf;
  }

  /**
   * Loses {@code host} with everything on it (see {@link HostNetwork#lose}): its DataNode,
   * NodeManager and containers, and its ZooKeeper server or the master daemons where it runs them.
   */
  public void loseHost(SimulatedHost host) throws IOException {
    network.lose(host);
    daemons.removeIf(d -> d.host().equals(host));
  }

  /** The host whose address is {@code address}, as YARN names a node. */
  public SimulatedHost host(String address) {
    return network.hosts().stream().filter(h -> h.address().equals(address)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no host of this cluster has address " + address));
  }

  /** A daemon that exited, with the end of its log: the reason a start failed. */
  Optional<String> deadDaemon() {
    for (HostDaemon d : daemons) {
      if (!d.alive()) {
        return Optional.of(d.name() + " on " + d.host().name() + " exited; its log: " + d.log());
      }
    }
    return Optional.empty();
  }

  /** Stops the daemons (each on SIGTERM), then removes the network and, if made here, the directory. */
  @Override
  public void close() {
    // Clients of a daemon stop before it (a NodeManager stopping after the ResourceManager waits
    // out its retries to unregister); daemons of one kind stop together.
    List<HostDaemon> stopping = new ArrayList<>(daemons);
    daemons.clear();
    for (String kind : List.of("nodemanager", "resourcemanager", "datanode", "namenode", "zookeeper")) {
      stopping.stream().filter(d -> d.name().startsWith(kind)).toList().parallelStream().forEach(HostDaemon::close);
    }
    if (network != null) {
      network.close();
    }
    if (ownsDir && dir != null) {
      org.apache.hadoop.fs.FileUtil.fullyDelete(dir.toFile());
    }
  }

  /** What the cluster is made of; {@link #start()} makes it. */
  public static final class Builder {
    private int hosts = 3;
    private double linkGbit = 1.0;
    private int gpusPerHost = 4;
    private int hostMemoryMb = 8192;
    private int hostVcores = 8;
    private Path dir;
    private Path shippedConf;
    private Duration startTimeout = Duration.ofMinutes(3);
    private int masterHosts;
    private final Map<String, String> yarnSettings = new LinkedHashMap<>();
    private final Map<String, String> hdfsSettings = new LinkedHashMap<>();

    public Builder hosts(int n) {
      if (n < 1 || n > 16) {
        throw new IllegalArgumentException("--hosts=" + n + ": 1 to 16");
      }
      this.hosts = n;
      return this;
    }

    public Builder linkGbit(double gbit) {
      if (!(gbit > 0)) {
        throw new IllegalArgumentException("--link-gbit=" + gbit + ": above 0");
      }
      this.linkGbit = gbit;
      return this;
    }

    public Builder gpusPerHost(int n) {
      if (n < 0) {
        throw new IllegalArgumentException("--gpus-per-node=" + n + ": 0 or more");
      }
      this.gpusPerHost = n;
      return this;
    }

    /**
     * The first {@code n} hosts run the master daemons and the ZooKeeper servers only, no DataNode
     * and no NodeManager: then losing a worker's host loses no ZooKeeper server.
     */
    public Builder masterHosts(int n) {
      this.masterHosts = n;
      return this;
    }

    /**
     * A setting every daemon's {@code yarn-site.xml} gets beside the shipped file's, as an admin
     * adds one for a cluster (a shorter NodeManager expiry, say).
     */
    public Builder yarnSetting(String key, String value) {
      this.yarnSettings.put(key, value);
      return this;
    }

    /** The same for every daemon's {@code hdfs-site.xml} (a shorter DataNode expiry, say). */
    public Builder hdfsSetting(String key, String value) {
      this.hdfsSettings.put(key, value);
      return this;
    }

    public Builder hostMemoryMb(int mb) {
      this.hostMemoryMb = mb;
      return this;
    }

    public Builder hostVcores(int n) {
      this.hostVcores = n;
      return this;
    }

    /** Data, logs and configuration; kept on close. Default: a temporary directory, removed. */
    public Builder dir(Path d) {
      this.dir = d;
      return this;
    }

    /** The shipped {@code conf/} directory the daemons' configuration is written from. */
    public Builder shippedConf(Path conf) {
      this.shippedConf = conf;
      return this;
    }

    public Builder startTimeout(Duration timeout) {
      this.startTimeout = timeout;
      return this;
    }

    public MultiHostCluster build() {
      if (shippedConf == null || !Files.isRegularFile(shippedConf.resolve("yarn-site.xml"))) {
        throw new IllegalArgumentException("conf: " + shippedConf + " holds no yarn-site.xml (the shipped conf/ directory)");
      }
      if (masterHosts < 0 || masterHosts >= hosts) {
        throw new IllegalArgumentException("master hosts: " + masterHosts + " of " + hosts
            + " (0 or more, and at least one host left for the workers)");
      }
      return new MultiHostCluster(this);
    }
  }
}
