package org.edl.cluster.hosts;

import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The network half of a nemesis on the multi-host cluster: cuts and heals the links between chosen
 * hosts (one direction or both), and isolates a host from every other host and from the machine.
 *
 * <p>A cut is silent, as a partition is on a real network: the sender's packets to the cut-off
 * address go to a hardware address that nobody has (a permanent neighbour entry on the sender's
 * side), so they leave without an error and every receiving interface drops them; TCP retransmits
 * into nothing until the cut heals or its own timeouts fire. Healing deletes the entry and ARP
 * finds the host again. It needs only iproute2: no {@code tc} classifier or firewall, which
 * containers often lack.
 *
 * <p>Every action is logged and kept, with its time, in {@link #history()}: a checker reads what
 * was cut when, not the log's words.
 */
public final class LinkCuts {
  private static final Logger LOG = LoggerFactory.getLogger(LinkCuts.class);
  /** Locally administered and never given to an interface: frames to it reach no one. */
  static final String NOWHERE = "02:00:00:ed:1c:00";

  /** One action, as it was taken. */
  public record Action(Instant at, String what) {}

  /** One direction of a link. */
  private record Link(End from, End to) {
    String name() {
      return from.name() + ">" + to.name();
    }
  }

  /** One side of a link: a host, or the machine itself (the client, the tests) on the bridge. */
  private record End(String name, String address, List<String> prefix, String device) {
    List<String> command(List<String> command) {
      List<String> in = new ArrayList<>(prefix);
      in.addAll(command);
      return in;
    }
  }

  private final HostNetwork network;
  private final Clock clock;
  /** Directions cut now, by "from>to" of the ends' names. */
  private final Map<String, Link> cut = new LinkedHashMap<>();
  private final List<Action> history = new ArrayList<>();

  public LinkCuts(HostNetwork network, Clock clock) {
    this.network = network;
    this.clock = clock;
  }

  /** Packets from {@code from} to {@code to} are dropped; the other direction still flows. */
  public synchronized void cut(SimulatedHost from, SimulatedHost to) throws IOException {
    cut(end(from), end(to));
  }

  /** Neither host's packets reach the other. */
  public synchronized void cutBetween(SimulatedHost a, SimulatedHost b) throws IOException {
    cut(end(a), end(b));
    cut(end(b), end(a));
  }

  /** Packets from {@code from} to {@code to} flow again. */
  public synchronized void heal(SimulatedHost from, SimulatedHost to) throws IOException {
    heal(end(from), end(to));
  }

  /** {@code host} reaches nobody and nobody reaches it: every other host, and the machine. */
  public synchronized void isolate(SimulatedHost host) throws IOException {
    End h = end(host);
    for (End other : othersThan(h)) {
      cut(h, other);
      cut(other, h);
    }
  }

  /** Every cut healed. */
  public synchronized void healAll() throws IOException {
    for (Link l : List.copyOf(cut.values())) {
      heal(l.from(), l.to());
    }
  }

  /** The directions cut now, {@code from>to} by host name ({@code machine} for the machine). */
  public synchronized Set<String> cuts() {
    return Set.copyOf(cut.keySet());
  }

  public synchronized List<Action> history() {
    return List.copyOf(history);
  }

  private void cut(End from, End to) throws IOException {
    Link link = new Link(from, to);
    if (cut.putIfAbsent(link.name(), link) != null) {
      return;
    }
    Commands.run(from.command(List.of("ip", "neigh", "replace", to.address(), "lladdr", NOWHERE, "dev", from.device(),
        "nud", "permanent")));
    record("cut " + from.name() + " -> " + to.name());
  }

  private void heal(End from, End to) throws IOException {
    if (cut.remove(new Link(from, to).name()) == null) {
      return;
    }
    Commands.run(from.command(List.of("ip", "neigh", "del", to.address(), "dev", from.device())));
    record("healed " + from.name() + " -> " + to.name());
  }

  private void record(String what) {
    Action a = new Action(clock.instant(), what);
    history.add(a);
    LOG.info("Nemesis at {}: {}", a.at(), what);
  }

  private End end(SimulatedHost host) {
    if (!network.hosts().contains(host)) {
      throw new IllegalArgumentException("host " + host + " is not one of this network's");
    }
    return new End(host.name(), host.address(), host.command(List.of()), "eth0");
  }

  private End machine() {
    return new End("machine", network.bridgeAddress(), List.of(), network.bridge());
  }

  private List<End> othersThan(End h) {
    List<End> others = new ArrayList<>();
    for (SimulatedHost s : network.hosts()) {
      if (!s.name().equals(h.name())) {
        others.add(end(s));
      }
    }
    others.add(machine());
    return others;
  }
}
