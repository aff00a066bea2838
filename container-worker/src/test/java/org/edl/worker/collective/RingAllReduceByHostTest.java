package org.edl.worker.collective;

import static org.edl.worker.collective.RingAllReduceTest.assertSums;
import static org.edl.worker.collective.RingAllReduceTest.input;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.edl.job.JobSecret;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The all-reduce over hosts: members on loopback addresses 127.0.0.1, 127.0.0.2, ... stand for
 * members on as many hosts, each host with its own shared-memory directory, so links inside a
 * host use shared memory and links between hosts TCP, as on a cluster.
 */
class RingAllReduceByHostTest {
  @TempDir
  Path shm;

  private LoopbackMembers onHosts(int hosts, int perHost) throws IOException {
    List<Path> dirs = new ArrayList<>();
    for (int h = 0; h < hosts; h++) {
      dirs.add(Files.createDirectories(shm.resolve("host" + h)));
    }
    // Ranks placed round-robin, so the flat ring's order is not the hosts' order.
    return new LoopbackMembers(hosts * perHost, JobSecret.generate(), 1, r -> dirs.get(r % hosts),
        r -> "127.0.0." + (1 + r % hosts));
  }

  /** The usual lengths, and two the all-reduce by host pipelines in blocks (2, and the most). */
  private static final int[] LENGTHS = java.util.stream.IntStream.concat(java.util.Arrays.stream(RingAllReduceTest.LENGTHS),
      java.util.stream.IntStream.of(2 * RingAllReduce.MIN_BLOCK_FLOATS + 1,
          RingAllReduce.MAX_BLOCKS * RingAllReduce.MIN_BLOCK_FLOATS + 7)).toArray();

  @Test
  void largeArraysGoInBlocksTheSameOnEveryMember() {
    assertEquals(1, RingAllReduce.blocks(0));
    assertEquals(1, RingAllReduce.blocks(RingAllReduce.MIN_BLOCK_FLOATS * 2 - 1));
    assertEquals(2, RingAllReduce.blocks(RingAllReduce.MIN_BLOCK_FLOATS * 2 + 1));
    assertEquals(RingAllReduce.MAX_BLOCKS, RingAllReduce.blocks(Integer.MAX_VALUE));
  }

  @Test
  void membersOnSeveralHostsGetTheSumAndTheSameFloatsWhateverTheLayout() throws Exception {
    int[][] layouts = {{2, 2}, {3, 2}, {2, 3}, {3, 3}};
    for (int[] layout : layouts) {
      int hosts = layout[0];
      int perHost = layout[1];
      int n = hosts * perHost;
      try (LoopbackMembers members = onHosts(hosts, perHost)) {
        List<Ring> rings = members.formRings();
        rings.forEach(ring -> assertEquals("shared memory inside each host, tcp between " + hosts + " hosts",
            ring.transport()));
        int chunkBytes = perHost == 2 ? 64 : RingAllReduce.DEFAULT_CHUNK_BYTES;
        List<List<float[]>> perRank = members.onAll(r -> {
          try (RingAllReduce ring = new RingAllReduce(rings.get(r), LoopbackMembers.TIMEOUT, chunkBytes)) {
            assertEquals(r, ring.rank());
            assertEquals(n, ring.size());
            List<float[]> out = new ArrayList<>();
            for (int length : LENGTHS) {
              float[] a = input(r, length);
              ring.sum(a);
              out.add(a);
            }
            return out;
          }
        });
        for (int i = 0; i < LENGTHS.length; i++) {
          int li = i;
          List<float[]> results = perRank.stream().map(l -> l.get(li)).toList();
          assertSums(n, LENGTHS[i], results);
          for (float[] other : results) {
            assertArrayEquals(results.get(0), other, "every member ends with the same floats: " + hosts + "x" + perHost);
          }
        }
        rings.forEach(Ring::close);
      }
    }
  }

  @Test
  void theLayoutGoesByHostOnlyWhereEveryHostHasTheSameNumberOfMembersAndAtLeastTwo() {
    assertTrue(HostLayout.of(topology("a", "b", "a", "b"), "w0").isPresent());
    assertEquals(Optional.empty(), HostLayout.of(topology("a", "b", "a"), "w0"), "uneven");
    assertEquals(Optional.empty(), HostLayout.of(topology("a", "b", "c"), "w0"), "one per host");
    assertEquals(Optional.empty(), HostLayout.of(topology("a", "a", "a"), "w0"), "one host");
    HostLayout l = HostLayout.of(topology("a", "b", "a", "b", "a", "b"), "w3").orElseThrow();
    assertEquals(List.of("w1", "w3", "w5"), ids(l.inside()), "w3's host b, in ring order");
    assertEquals(List.of("w2", "w3"), ids(l.across()), "second on each host, hosts in order of appearance");
  }

  @Test
  void aFlatLayoutAskedForKeepsTheFlatRing() throws Exception {
    try (LoopbackMembers members = onHosts(2, 2)) {
      List<Ring> rings = members.onAll(r -> Ring.form(members.planes.get(r), members.topology,
          LoopbackMembers.TIMEOUT, RingAllReduce.DEFAULT_CHUNK_BYTES, Ring.Layout.FLAT));
      rings.forEach(ring -> assertEquals("tcp", ring.transport(), "neighbours alternate hosts"));
      List<float[]> results = members.onAll(r -> {
        try (RingAllReduce ring = new RingAllReduce(rings.get(r), LoopbackMembers.TIMEOUT)) {
          float[] a = input(r, 10_007);
          ring.sum(a);
          return a;
        }
      });
      assertSums(4, 10_007, results);
      rings.forEach(Ring::close);
    }
  }

  /** A member gone names itself to the neighbours of both its rings, as on a flat ring. */
  @Test
  void aMemberThatClosesItsLinksIsNamedAsABrokenLinkByItsNeighbours() throws Exception {
    try (LoopbackMembers members = onHosts(2, 2)) {
      List<Ring> rings = members.formRings();
      String gone = members.topology.member(3).workerId();
      List<Object> outcomes = members.onAll(r -> {
        if (r == 3) {
          rings.get(3).close();
          return "closed";
        }
        try (RingAllReduce ring = new RingAllReduce(rings.get(r), Duration.ofSeconds(5))) {
          return assertThrows(IOException.class, () -> ring.sum(new float[100_000]));
        }
      });
      // Rank 3 (host 127.0.0.2) is inside-neighbour of rank 1 and across-neighbour of rank 2.
      for (int r : new int[] {1, 2}) {
        BrokenLinkException e = assertInstanceOf(BrokenLinkException.class, outcomes.get(r), "rank " + r);
        assertEquals(gone, e.peerId(), e.getMessage());
      }
      rings.forEach(Ring::close);
    }
  }

  /**
   * An abort from another thread while rank 0 calls (w3 never does): whether it lands before the
   * call or during its wait, the call fails with the abort's reason, not at its 5-minute timeout.
   */
  @Test
  void anAbortEndsTheCallInProgressAtOnce() throws Exception {
    try (LoopbackMembers members = onHosts(2, 2)) {
      List<Ring> rings = members.formRings();
      try (RingAllReduce ring = new RingAllReduce(rings.get(0), Duration.ofMinutes(5))) {
        CountDownLatch calling = new CountDownLatch(1);
        Thread aborter = new Thread(() -> {
          try {
            calling.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          ring.abort("member w3 declared failed");
        });
        aborter.start();
        calling.countDown();
        IOException e = assertThrows(IOException.class, () -> ring.sum(new float[100_000]));
        assertTrue(e.getMessage().contains("aborted: member w3 declared failed"), e.getMessage());
        aborter.join();
      }
      rings.forEach(Ring::close);
    }
  }

  private static RingTopology topology(String... hosts) {
    List<RingTopology.Member> members = new ArrayList<>();
    for (int i = 0; i < hosts.length; i++) {
      members.add(new RingTopology.Member("w" + i, hosts[i], 1000 + i));
    }
    return new RingTopology(1, members);
  }

  private static List<String> ids(RingTopology t) {
    return t.members().stream().map(RingTopology.Member::workerId).toList();
  }
}
