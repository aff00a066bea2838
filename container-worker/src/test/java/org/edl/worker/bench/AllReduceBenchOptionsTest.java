package org.edl.worker.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.edl.job.InvalidInputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AllReduceBenchOptionsTest {

  @Test
  void defaultsRunTwoAndFourMembersUpTo256MiBInPowersOfFour() {
    AllReduceBenchOptions o = AllReduceBenchOptions.parse();
    assertEquals(List.of(2, 4), o.members());
    List<Long> sizes = o.sizes();
    assertEquals(1024L, sizes.get(0));
    assertEquals(256L << 20, sizes.get(sizes.size() - 1));
    assertTrue(sizes.contains(1L << 20) && sizes.contains(64L << 20));
    assertEquals(Path.of("docs", "benchmarks"), o.outDir());
    assertEquals(AllReduceBenchOptions.Gloo.AUTO, o.gloo());
    assertEquals("python3", o.python());
  }

  @Test
  void sizesAndCountsParseInBothSpellings() {
    AllReduceBenchOptions o = AllReduceBenchOptions.parse("--max-bytes", "3MiB", "--iterations=3", "--members", "3");
    assertEquals(3L << 20, o.maxBytes());
    assertEquals(List.of(1024L, 4096L, 16384L, 65536L, 262144L, 1048576L, 3L << 20), o.sizes());
    assertEquals(3, o.iterations());
    assertEquals(30, o.iterationsFor(1024));
    assertEquals(List.of(3), o.members());
  }

  @Test
  void badValuesNameTheOptionAndTheValue(@TempDir Path dir) throws Exception {
    assertMessage("max-bytes=lots: not a whole number", "--max-bytes", "lots");
    assertMessage("max-bytes=512: must be a whole number of floats between 1KiB and 1GiB", "--max-bytes", "512");
    assertMessage("max-bytes=2147483648: must be a whole number of floats", "--max-bytes", "2GiB");
    assertMessage("iterations=0: must be between 1 and", "--iterations", "0");
    assertMessage("option=--fast: unknown", "--fast");
    assertMessage("iterations=null: needs a value", "--iterations");
    assertMessage("members=2,1: must be between 2 and 64", "--members", "2,1");
    assertMessage("gloo=maybe: choose auto, on or off", "--gloo", "maybe");
    Path file = Files.writeString(dir.resolve("not-a-dir"), "x");
    assertMessage("out-dir=" + file + ": exists and is not a directory", "--out-dir", file.toString());
  }

  @Test
  void busBandwidthFollowsNcclTests() {
    BandwidthPoint p = BandwidthPoint.allReduce(4, 1_000_000_000L, AllReduceBench.RING, 2.0);
    assertEquals(0.5, p.algbwGbps(), 1e-12);
    assertEquals(0.75, p.busbwGbps(), 1e-12);
    assertEquals("4,1000000000,ring,0.5000,0.7500", p.csv());
    BandwidthPoint s = BandwidthPoint.stream(2_000_000_000L, AllReduceBench.P2P, 1.0);
    assertEquals(2.0, s.busbwGbps(), 1e-12);
  }

  private static void assertMessage(String expected, String... args) {
    InvalidInputException e = assertThrows(InvalidInputException.class, () -> AllReduceBenchOptions.parse(args));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }
}
