package org.edl.bench.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.edl.cluster.hosts.HostNetwork;
import org.edl.worker.bench.GlooPeer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmark between hosts on its smallest run: two simulated hosts with the real {@code ip},
 * {@code tc} and {@code nsenter}, our ring's members as JVMs and gloo's as Python processes in their
 * namespaces, one and then two per host. Speeds are the benchmark's business; this checks that
 * each layout gives a row for each implementation, that two members of a host share memory and
 * talk TCP to the other host, and that the network and the members' logs are gone afterwards.
 */
class HostsAllReduceBenchTest {
  private static final long BYTES = 64 << 10;

  @BeforeAll
  static void needsRootIproute2AndTorch() {
    var why = HostNetwork.unavailable();
    assumeTrue(why.isEmpty(), () -> "skipped: " + why.orElse(""));
    assumeTrue(GlooPeer.find("python3").isPresent(),
        "skipped: no Python with torch.distributed and gloo (Debian: apt-get install python3-torch)");
  }

  @Test
  void eachLayoutGivesARowPerImplementationAndTheNetworkGoesAfterwards(@TempDir Path out) throws Exception {
    StringWriter progress = new StringWriter();
    HostsAllReduceOptions options = new HostsAllReduceOptions(2, List.of(1, 2), 1.0, List.of(BYTES), 1, 1, 16 << 10,
        out, "python3");

    List<HostsBandwidthRow> rows = new HostsAllReduceBench(options, new PrintWriter(progress, true)).run();

    assertEquals(Set.of("2 ring", "2 gloo", "4 ring", "4 ring-flat", "4 gloo"),
        rows.stream().map(r -> r.members() + " " + r.impl()).collect(Collectors.toSet()), progress.toString());
    for (HostsBandwidthRow r : rows) {
      assertEquals(2, r.hosts());
      assertEquals(BYTES, r.bytes());
      assertEquals(1.0, r.linkGbit());
      assertTrue(r.busbwGbps() > 0 && Double.isFinite(r.busbwGbps()), r.toString());
    }
    assertTrue(progress.toString().contains("ring, 1 per host (2 members) formed: every member tcp"),
        progress.toString());
    assertTrue(progress.toString().contains("ring, 2 per host (4 members) formed: every member shared memory inside"
        + " each host, tcp between 2 hosts"), progress.toString());
    assertTrue(progress.toString().contains("ring-flat, 2 per host (4 members) formed: h1-0: shared memory to the"
        + " right, tcp from the left; h1-1: tcp to the right, shared memory from the left"), progress.toString());

    List<String> csv = Files.readAllLines(out.resolve(HostsAllReduceBench.CSV), StandardCharsets.UTF_8);
    assertEquals("members,hosts,bytes,impl,link_gbit,busbw_gbps", csv.get(0));
    assertEquals(6, csv.size(), String.join("\n", csv));
    assertTrue(Files.size(out.resolve(HostsAllReduceBench.PNG)) > 0);
    Set<String> used = Pattern.compile("ip netns exec (\\S+) ").matcher(progress.toString()).results()
        .map(m -> m.group(1)).collect(Collectors.toSet());
    assertEquals(2, used.size(), progress.toString());
    Set<String> left = namespaces();
    left.retainAll(used);
    assertEquals(Set.of(), left, "the hosts' namespaces are removed");
    Path logs = Path.of(Pattern.compile("Member logs in (\\S+) ").matcher(progress.toString()).results()
        .findFirst().orElseThrow().group(1));
    assertTrue(Files.notExists(logs), "the members' logs go after a run without errors: " + logs);
  }

  private static Set<String> namespaces() throws IOException, InterruptedException {
    Process p = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
    String listed = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    return listed.lines().map(l -> l.strip().split("\\s+")[0]).filter(s -> !s.isEmpty()).collect(Collectors.toCollection(java.util.HashSet::new));
  }
}
