package org.edl.worker.runtime;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.edl.job.ModelOutput;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's last write (the model and its metrics) tried again after an I/O failure, a few
 * times with growing pauses, while it still leads: the write comes after every step of the job,
 * and one HDFS failure there (a client that picked DataNodes of hosts just lost, say) would
 * otherwise fail a job that trained to its end. A superseded leadership is never retried.
 */
final class OutputRetry {
  private static final Logger LOG = LoggerFactory.getLogger(OutputRetry.class);
  /** The pauses before the second, third and fourth tries. */
  static final List<Duration> PAUSES = List.of(Duration.ofSeconds(5), Duration.ofSeconds(15), Duration.ofSeconds(30));

  /** The write; each call writes everything anew (temporaries, then renames). */
  @FunctionalInterface
  interface Write {
    ModelOutput.Written attempt() throws IOException;
  }

  /** Waits between tries (tests pass one that records instead). */
  @FunctionalInterface
  interface Pause {
    void sleep(Duration d) throws InterruptedException;
  }

  private final List<Duration> pauses;
  private final Pause pause;

  OutputRetry(List<Duration> pauses, Pause pause) {
    this.pauses = List.copyOf(pauses);
    this.pause = pause;
  }

  static OutputRetry standard() {
    return new OutputRetry(PAUSES, d -> Thread.sleep(d.toMillis()));
  }

  ModelOutput.Written write(Write write, BooleanSupplier stillLeading) throws IOException, InterruptedException {
    for (int tried = 0; ; tried++) {
      try {
        return write.attempt();
      } catch (ModelOutput.Superseded e) {
        throw e;
      } catch (IOException e) {
        if (tried >= pauses.size() || !stillLeading.getAsBoolean()) {
          throw e;
        }
        Duration next = pauses.get(tried);
        LOG.warn("Writing the model failed ({}); trying again in {} s ({} of {} retries)", e.toString(),
            next.toSeconds(), tried + 1, pauses.size());
        pause.sleep(next);
      }
    }
  }
}
