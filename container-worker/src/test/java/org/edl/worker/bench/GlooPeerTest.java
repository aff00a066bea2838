package org.edl.worker.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The gloo peer of {@code edl bench allreduce} on real PyTorch (Debian's python3-torch, which
 * {@code bin/test} installs): two processes all-reduce and check their sums, and their times come
 * back as points of the benchmark's CSV.
 */
class GlooPeerTest {
  @Test
  void twoProcessesAllReduceWithGlooAndReportEachSize() throws IOException {
    GlooPeer peer = GlooPeer.find("python3").orElseThrow(() -> new AssertionError(
        "no Python with torch.distributed and gloo: bin/test installs Debian's python3-torch"));
    List<BandwidthPoint> points = peer.run(2, List.of(1024L, 256L << 10), 1, 1);
    assertEquals(List.of(1024L, 256L << 10), points.stream().map(BandwidthPoint::bytes).toList());
    for (BandwidthPoint p : points) {
      assertEquals(GlooPeer.IMPL, p.impl());
      assertEquals(2, p.members());
      assertTrue(p.busbwGbps() > 0 && Double.isFinite(p.busbwGbps()), p.toString());
    }
  }

  @Test
  void anUnreadableLineIsAnErrorNamingIt() {
    IOException e = assertThrows(IOException.class, () -> GlooPeer.points(2, "1024,0.001\nTraceback (most recent"));
    assertTrue(e.getMessage().contains("'Traceback (most recent'"), e.getMessage());
  }
}
