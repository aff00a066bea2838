package org.edl.bench.hosts;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.edl.cluster.hosts.HostNetwork;
import org.edl.cluster.hosts.SimulatedHost;
import org.edl.worker.bench.BandwidthPlot;
import org.edl.worker.bench.BandwidthPoint;
import org.edl.worker.bench.GlooPeer;

/**
 * {@code edl bench allreduce --hosts N}: our ring and PyTorch's gloo between simulated hosts whose
 * links a token bucket caps, members as processes in the hosts' namespaces, for each layout (one
 * member per host, two, ...; with several per host, our ring both by host, its default, and flat).
 * Writes {@code allreduce-hosts.csv} and {@code allreduce-hosts.png}.
 * The network is removed at the end, on an error and on Ctrl-C or SIGTERM (a shutdown hook); what
 * a {@code kill -9} leaves, the next run removes. A benchmark: nothing here asserts a speed.
 */
public final class HostsAllReduceBench {
  public static final String RING = "ring";
  /** Our ring without the all-reduce by host, where hosts hold several members: what that adds. */
  public static final String RING_FLAT = "ring-flat";
  public static final String GLOO = GlooPeer.IMPL;
  public static final String CSV = "allreduce-hosts.csv";
  public static final String PNG = "allreduce-hosts.png";
  private static final String LINK = "link-limit";

  private final HostsAllReduceOptions options;
  private final PrintWriter progress;

  public HostsAllReduceBench(HostsAllReduceOptions options, PrintWriter progress) {
    this.options = options;
    this.progress = progress;
  }

  /** Runs every layout and size, writes the CSV and the plot, and returns the rows. */
  public List<HostsBandwidthRow> run() throws IOException {
    var why = HostNetwork.unavailable();
    if (why.isPresent()) {
      throw new IOException(why.get());
    }
    GlooPeer gloo = GlooPeer.find(options.python()).orElseThrow(() -> new IOException("no Python with"
        + " torch.distributed and gloo (tried " + options.python() + " and /usr/bin/python3; Debian: apt-get"
        + " install python3-torch)"));
    Files.createDirectories(options.outDir());
    Path work = Files.createTempDirectory("edl-bench-hosts-");
    Path script = work.resolve("gloo_allreduce.py");
    GlooPeer.writeScript(script);
    progress.printf("Member logs in %s (removed after a run without errors); gloo with %s; load average %s%n", work,
        gloo.python(), loadAverage());

    List<HostsBandwidthRow> rows = new ArrayList<>();
    HostNetwork network = HostNetwork.create(options.hosts(), options.linkGbit());
    Thread hook = new Thread(network::close, "edl-bench-hosts-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try (network) {
      progress.printf(Locale.ROOT, "%d hosts, each link capped at %s Gbit/s (%.4f GB/s):%n", options.hosts(),
          options.linkGbit(), options.linkGbps());
      network.hosts().forEach(h -> progress.printf("  %s  %s  (ip netns exec %s ...)%n", h.name(), h.address(),
          h.namespace()));
      progress.flush();
      for (int perHost : options.membersPerHost()) {
        int members = perHost * options.hosts();
        long largest = options.sizes().stream().mapToLong(Long::longValue).max().orElseThrow();
        rows.addAll(ring(network.hosts(), perHost, false, largest, work));
        if (perHost > 1) {
          rows.addAll(ring(network.hosts(), perHost, true, largest, work));
        }
        progress.printf("gloo, %d per host (%d members)%n", perHost, members);
        progress.flush();
        HostGlooMembers.run(network.hosts(), perHost, options.sizes(), options.iterations(), options.warmup(),
            gloo.python(), script, work, (bytes, seconds) -> rows.add(report(
                HostsBandwidthRow.of(members, options.hosts(), bytes, GLOO, options.linkGbit(), seconds))));
      }
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // The hook runs: it removes the network.
      }
    }
    progress.printf("Load average at the end: %s%n", loadAverage());
    write(rows);
    // The members' logs only matter when something failed; then the error names them.
    deleteTree(work);
    return rows;
  }

  /** Our ring's rows for one layout: by host (where hosts hold several members) or {@code flat}. */
  private List<HostsBandwidthRow> ring(List<SimulatedHost> hosts, int perHost, boolean flat, long largest, Path work)
      throws IOException {
    int members = perHost * options.hosts();
    String impl = flat ? RING_FLAT : RING;
    List<HostsBandwidthRow> rows = new ArrayList<>();
    try (HostRingMembers ring = HostRingMembers.form(hosts, perHost, flat, options.chunkBytes(), largest, work)) {
      progress.printf("%s, %d per host (%d members) formed: %s%n", impl, perHost, members,
          describe(ring.transports()));
      progress.flush();
      ring.warmUp(largest);
      for (long bytes : options.sizes()) {
        double seconds = ring.medianSeconds(bytes, options.warmup(), options.iterationsFor(bytes));
        rows.add(report(HostsBandwidthRow.of(members, options.hosts(), bytes, impl, options.linkGbit(), seconds)));
      }
    }
    return rows;
  }

  private static void deleteTree(Path dir) throws IOException {
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** The machine's load average, for the record: this benchmark shares its cores with everything else. */
  private static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg"), StandardCharsets.UTF_8).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private void write(List<HostsBandwidthRow> rows) throws IOException {
    Path csv = options.outDir().resolve(CSV);
    try (var out = Files.newBufferedWriter(csv, StandardCharsets.UTF_8)) {
      HostsBandwidthRow.writeCsv(rows, out);
    }
    List<BandwidthPoint> points = new ArrayList<>();
    for (HostsBandwidthRow r : rows) {
      points.add(new BandwidthPoint(r.members(), r.bytes(), r.impl(), Double.NaN, r.busbwGbps()));
    }
    for (long bytes : options.sizes()) {
      points.add(new BandwidthPoint(2, bytes, LINK, options.linkGbps(), options.linkGbps()));
    }
    Path png = options.outDir().resolve(PNG);
    BandwidthPlot.write(points, String.format(Locale.ROOT, "All-reduce bus bandwidth between %d hosts, links capped"
        + " at %s Gbit/s (%d cores)", options.hosts(), options.linkGbit(), Runtime.getRuntime().availableProcessors()),
        png);
    progress.println("wrote " + csv + " and " + png);
    progress.flush();
  }

  private HostsBandwidthRow report(HostsBandwidthRow r) {
    progress.printf(Locale.ROOT, "%-9s hosts=%d members=%d bytes=%-10d busbw=%7.4f GB/s (%.2f of the link)%n",
        r.impl(), r.hosts(), r.members(), r.bytes(), r.busbwGbps(), r.ofLink());
    progress.flush();
    return r;
  }

  /** "h1-0..h2-1: tcp" when all agree, each member's otherwise. */
  private static String describe(Map<String, String> transports) {
    if (transports.values().stream().distinct().count() == 1) {
      return "every member " + transports.values().iterator().next();
    }
    StringBuilder b = new StringBuilder();
    transports.forEach((member, how) -> b.append(b.length() == 0 ? "" : "; ").append(member).append(": ").append(how));
    return b.toString();
  }
}
