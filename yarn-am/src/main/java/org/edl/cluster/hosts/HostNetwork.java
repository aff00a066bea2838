package org.edl.cluster.hosts;

import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The network of the multi-host cluster on one machine: a bridge with a subnet of its own and, per
 * host, a network namespace joined to it by a veth pair, its link capped by a token bucket
 * ({@code tc tbf}) in both directions. The machine itself (the client, the tests) reaches the
 * hosts through the bridge's own address; the namespaces have no default route, so nothing in them
 * reaches any address but the cluster's. Made with {@code ip} and {@code tc} as root; {@link
 * #close()} removes it all, and {@link #removeLeftovers()}, which {@link #create} calls first,
 * removes what a killed run left (a network whose {@link NetworkOwner} is gone).
 */
public final class HostNetwork implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HostNetwork.class);
  /** Every name this class makes starts {@code edl} + a 4-hex-digit id (interface names: 15 characters at most). */
  private static final Pattern NAMESPACE = Pattern.compile("(edl[0-9a-f]{4})-h\\d+");
  private static final Pattern BRIDGE = Pattern.compile("(edl[0-9a-f]{4})br");
  private static final String SUBNET_PREFIX = "10.213.";
  private static final int FIRST_HOST_OCTET = 10;

  private final String id;
  private final NetworkOwner owner;
  private final String bridgeAddress;
  private final double linkGbit;
  private final List<SimulatedHost> hosts;

  private HostNetwork(String id, NetworkOwner owner, String bridgeAddress, double linkGbit, List<SimulatedHost> hosts) {
    this.id = id;
    this.owner = owner;
    this.bridgeAddress = bridgeAddress;
    this.linkGbit = linkGbit;
    this.hosts = hosts;
  }

  /** Why a host network cannot be made here, or empty where it can (root, with iproute2's ip and tc). */
  public static Optional<String> unavailable() {
    if (!"root".equals(System.getProperty("user.name"))) {
      return Optional.of("the multi-host cluster needs root (network namespaces); running as "
          + System.getProperty("user.name"));
    }
    for (String program : List.of("ip", "tc")) {
      if (!Commands.onPath(program)) {
        return Optional.of("the multi-host cluster needs iproute2's `" + program + "` (apt-get install iproute2)");
      }
    }
    return Optional.empty();
  }

  /** Makes {@code count} hosts on a fresh bridge, each link capped at {@code linkGbit}. */
  public static HostNetwork create(int count, double linkGbit) throws IOException {
    if (count < 1 || count > 200) {
      throw new IllegalArgumentException("hosts: " + count + " (1 to 200)");
    }
    if (!(linkGbit > 0)) {
      throw new IllegalArgumentException("link-gbit: " + linkGbit + " (above 0)");
    }
    Optional<String> why = unavailable();
    if (why.isPresent()) {
      throw new IOException(why.get());
    }
    removeLeftovers();
    String id = String.format(Locale.ROOT, "edl%04x", new SecureRandom().nextInt(0x10000));
    NetworkOwner owner = NetworkOwner.claim(id); // before anything exists, so a kill leaves nothing unowned
    String subnet = freeSubnet();
    List<SimulatedHost> hosts = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      hosts.add(new SimulatedHost("h" + i, id + "-h" + i, subnet + (FIRST_HOST_OCTET + i - 1)));
    }
    HostNetwork network = new HostNetwork(id, owner, subnet + "1", linkGbit, List.copyOf(hosts));
    try {
      network.build();
    } catch (IOException | RuntimeException e) {
      network.close();
      throw e;
    }
    LOG.info("Host network {}: bridge {} at {}/24, {} host(s) {}, each link capped at {} Gbit/s", id, network.bridge(),
        network.bridgeAddress, count, hosts.stream().map(SimulatedHost::address).toList(), linkGbit);
    return network;
  }

  public List<SimulatedHost> hosts() {
    return hosts;
  }

  /** The machine's own address on the bridge: where the hosts reach the client. */
  public String bridgeAddress() {
    return bridgeAddress;
  }

  public double linkGbit() {
    return linkGbit;
  }

  /** The bridge's device on the machine, where the machine's side of every link is. */
  String bridge() {
    return id + "br";
  }

  private void build() throws IOException {
    Commands.run(List.of("ip", "link", "add", bridge(), "type", "bridge"));
    Commands.run(List.of("ip", "addr", "add", bridgeAddress + "/24", "dev", bridge()));
    Commands.run(List.of("ip", "link", "set", bridge(), "up"));
    for (int i = 0; i < hosts.size(); i++) {
      SimulatedHost host = hosts.get(i);
      String outside = id + "v" + (i + 1);
      Commands.run(List.of("ip", "netns", "add", host.namespace()));
      Commands.run(List.of("ip", "link", "add", outside, "type", "veth", "peer", "name", "eth0", "netns", host.namespace()));
      Commands.run(List.of("ip", "link", "set", outside, "master", bridge(), "up"));
      Commands.run(host.command(List.of("ip", "link", "set", "lo", "up")));
      Commands.run(host.command(List.of("ip", "addr", "add", host.address() + "/24", "dev", "eth0")));
      Commands.run(host.command(List.of("ip", "link", "set", "eth0", "up")));
      // Both directions: the host's sending on its eth0, its receiving on the bridge's end.
      Commands.run(host.command(tokenBucket("eth0")));
      Commands.run(tokenBucket(outside));
    }
  }

  /** A token bucket at the link's rate; its burst is 4 ms of the rate (the kernel's timer allows less). */
  private List<String> tokenBucket(String device) {
    long bitsPerSecond = Math.round(linkGbit * 1e9);
    long burstBytes = Math.max(32 * 1024, bitsPerSecond / 8 / 250);
    return List.of("tc", "qdisc", "replace", "dev", device, "root", "tbf", "rate", bitsPerSecond + "bit",
        "burst", Long.toString(burstBytes), "latency", "50ms");
  }

  /** A /24 under 10.213 that no route of this machine covers. */
  private static String freeSubnet() throws IOException {
    String routes = Commands.run(List.of("ip", "-4", "route", "show"));
    boolean wholeRangeRouted = routes.contains("10.0.0.0/8") || routes.contains(SUBNET_PREFIX + "0.0/16");
    for (int third = 0; third < 256 && !wholeRangeRouted; third++) {
      String candidate = SUBNET_PREFIX + third + ".";
      if (!routes.contains(candidate)) {
        return candidate;
      }
    }
    throw new IOException("no free /24 under " + SUBNET_PREFIX + "0.0/16: every one is routed on this machine");
  }

  /** Removes every host network whose owner is gone: its processes, namespaces and bridge. */
  public static void removeLeftovers() throws IOException {
    Set<String> ids = new HashSet<>(NetworkOwner.recorded());
    List<String> namespaces = namespaces();
    for (String ns : namespaces) {
      Matcher m = NAMESPACE.matcher(ns);
      if (m.matches()) {
        ids.add(m.group(1));
      }
    }
    List<String> bridges = bridges();
    for (String br : bridges) {
      Matcher m = BRIDGE.matcher(br);
      if (m.matches()) {
        ids.add(m.group(1));
      }
    }
    for (String id : ids) {
      Optional<NetworkOwner> owner = NetworkOwner.of(id);
      if (owner.isPresent() && owner.get().alive()) {
        continue;
      }
      LOG.info("Removing host network {}, left by a run that ended without removing it", id);
      remove(id, namespaces.stream().filter(ns -> ns.startsWith(id + "-h")).toList(),
          bridges.contains(id + "br"));
      owner.ifPresent(NetworkOwner::release);
    }
  }

  /**
   * {@code host} goes away as a machine does when it loses power: its link goes down first, so that
   * no peer hears a reset or a close from it (their packets to it are dropped, as on a real
   * network), then every process on it is killed at once.
   */
  public void lose(SimulatedHost host) throws IOException {
    int i = hosts.indexOf(host);
    if (i < 0) {
      throw new IllegalArgumentException("host " + host + " is not one of network " + id + "'s");
    }
    Commands.run(List.of("ip", "link", "set", id + "v" + (i + 1), "down"));
    HostProcesses.killAllAtOnce(host.namespace());
    LOG.info("Host {} ({}) lost: link down, every process on it killed", host.name(), host.address());
  }

  /** Ends every process in the hosts, then removes the namespaces, the bridge and the owner file. */
  @Override
  public void close() {
    List<String> namespaces;
    try {
      namespaces = namespaces().stream().filter(ns -> ns.startsWith(id + "-h")).toList();
    } catch (IOException e) {
      namespaces = hosts.stream().map(SimulatedHost::namespace).toList();
    }
    remove(id, namespaces, true);
    owner.release();
  }

  private static void remove(String id, List<String> namespaces, boolean bridge) {
    for (String ns : namespaces) {
      HostProcesses.killAll(ns);
      Commands.runQuietly(List.of("ip", "netns", "del", ns));
    }
    // The kernel takes a deleted namespace's veth pairs down in the background; deleting their
    // ends here takes each pair down at once, so nothing of this network outlives close().
    try {
      for (String link : links()) {
        if (link.startsWith(id + "v")) {
          Commands.runQuietly(List.of("ip", "link", "del", link));
        }
      }
    } catch (IOException e) {
      LOG.debug("Could not list the links of host network {}: {}", id, e.toString());
    }
    if (bridge) {
      Commands.runQuietly(List.of("ip", "link", "del", id + "br"));
    }
  }

  static List<String> namespaces() throws IOException {
    List<String> names = new ArrayList<>();
    for (String line : Commands.run(List.of("ip", "netns", "list")).split("\n")) {
      if (!line.isBlank()) {
        names.add(line.strip().split("\\s+")[0]);
      }
    }
    return names;
  }

  private static List<String> bridges() throws IOException {
    return linkNames(List.of("ip", "-o", "link", "show", "type", "bridge"));
  }

  private static List<String> links() throws IOException {
    return linkNames(List.of("ip", "-o", "link", "show"));
  }

  private static List<String> linkNames(List<String> command) throws IOException {
    List<String> names = new ArrayList<>();
    for (String line : Commands.run(command).split("\n")) {
      String[] fields = line.strip().split(":\\s+");
      if (fields.length > 1) {
        names.add(fields[1].split("@")[0]);
      }
    }
    return names;
  }
}
