package org.edl.scheduler.sim;

import java.io.PrintStream;

/** A one-line progress bar on stderr, redrawn at most five times a second. */
public final class ProgressBar {
  private final PrintStream err;
  private final String label;
  private final long total;
  private long lastDraw;
  private boolean closed;

  public ProgressBar(PrintStream err, String label, long total) {
    this.err = err;
    this.label = label;
    this.total = Math.max(1, total);
  }

  void update(long done, double simDays) {
    long now = System.nanoTime();
    if (closed) {
      return;
    }
    if (now - lastDraw < 200_000_000L && done < total) {
      return;
    }
    lastDraw = now;
    int width = 30;
    int filled = (int) (width * done / total);
    err.printf("\r%-18s [%s%s] %3d%% %d/%d jobs, day %.1f", label, "=".repeat(filled), " ".repeat(width - filled),
        100 * done / total, done, total, simDays);
    if (done >= total) {
      closed = true;
      err.println();
    }
    err.flush();
  }
}
