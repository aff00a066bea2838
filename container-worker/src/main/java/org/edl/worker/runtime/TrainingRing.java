package org.edl.worker.runtime;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.edl.worker.collective.AllReduce;
import org.edl.worker.collective.CollectiveTimeoutException;
import org.edl.worker.collective.Ring;
import org.edl.worker.collective.RingAllReduce;
import org.edl.worker.collective.RingTopology;
import org.edl.worker.data.BatchSlicer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ring a member trains on, which at a switch is known (its topology and this worker's rank)
 * before it is connected. The members connect it, and the broadcaster sends the model to the
 * newcomers, on background threads while the first step on it computes; only that step's
 * all-reduce waits for them. A survivor thus never stops at a switch: inside its first
 * all-reduce it waits only for the newcomers' first gradients, which follow the broadcast by one
 * batch, as every member's do.
 *
 * <p>That is safe because the model's parameters do not change while a step computes: they
 * change only once the step's all-reduce returned ({@link org.edl.worker.model.TrainableModel}),
 * and this one cannot return before every newcomer received the model and contributed.
 *
 * <p>A failure while connecting (a peer that never dialled, a newcomer gone during its
 * broadcast) or an {@link #abort} fails the all-reduce with an {@link IOException}, as a broken
 * link of a connected ring does: the training loop then recovers from the step before.
 */
final class TrainingRing implements AllReduce, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TrainingRing.class);
  private final RingTopology topology;
  private final int rank;
  private final Duration timeout;
  private final Future<Ring> connecting;
  /** What must be done before the first all-reduce besides connecting (the broadcast); null if nothing. */
  private final Future<?> before;
  /** Each rank's weight in the first step on this ring (joiners start it late); null: even parts. */
  private final long[] firstStepWeights;
  private volatile boolean summed;
  private Ring ring;
  private RingAllReduce allReduce;
  private String abortedBecause;
  private boolean closed;

  private TrainingRing(RingTopology topology, int rank, Duration timeout, Future<Ring> connecting, Future<?> before,
      long[] firstStepWeights) {
    this.topology = topology;
    this.rank = rank;
    this.timeout = timeout;
    this.connecting = connecting;
    this.before = before;
    if (firstStepWeights != null && firstStepWeights.length != topology.size()) {
      throw new IllegalArgumentException(firstStepWeights.length + " weights for a ring of " + topology.size());
    }
    this.firstStepWeights = firstStepWeights == null ? null : firstStepWeights.clone();
  }

  /** A ring already connected. */
  static TrainingRing connected(Ring ring, Duration timeout) throws IOException {
    TrainingRing t = new TrainingRing(ring.topology(), ring.rank(), timeout, null, null, null);
    t.ring = ring;
    t.allReduce = new RingAllReduce(ring, timeout);
    return t;
  }

  /**
   * A ring still being connected by {@code connecting}, usable once that and {@code before} (null:
   * nothing) are done; each is waited for at most {@code timeout} at the first all-reduce. Its
   * first step is sliced by {@code firstStepWeights} (null: evenly).
   */
  static TrainingRing connecting(RingTopology topology, String self, Duration timeout, Future<Ring> connecting,
      Future<?> before, long[] firstStepWeights) {
    return new TrainingRing(topology, topology.rankOf(self), timeout, connecting, before, firstStepWeights);
  }

  /**
   * This member's part of a step's global batch: by the weights in the first step on this ring
   * (until its first all-reduce), evenly after it.
   */
  BatchSlicer.Range slice(long batchStart, int globalBatch) {
    long[] w = firstStepWeights;
    return w == null || summed ? BatchSlicer.slice(batchStart, globalBatch, rank, size())
        : BatchSlicer.slice(batchStart, globalBatch, rank, w);
  }

  RingTopology topology() {
    return topology;
  }

  long version() {
    return topology.version();
  }

  @Override
  public int rank() {
    return rank;
  }

  @Override
  public int size() {
    return topology.size();
  }

  /** Whether its links are up (always, once an all-reduce ran on it). */
  synchronized boolean isConnected() {
    return allReduce != null;
  }

  /** How frames travel, for logs; "not connected yet" while it is being connected. */
  synchronized String transport() {
    return ring == null ? "not connected yet" : ring.transport();
  }

  @Override
  public void sum(float[] data) throws IOException {
    summed = true;
    connected().sum(data);
  }

  private RingAllReduce connected() throws IOException {
    synchronized (this) {
      if (allReduce != null) {
        return allReduce;
      }
      failIfOver();
    }
    Ring formed = await(connecting, "connecting ring v" + version());
    try {
      if (before != null) {
        await(before, "preparing ring v" + version());
      }
      RingAllReduce made;
      synchronized (this) {
        failIfOver();
        ring = formed;
        allReduce = made = new RingAllReduce(formed, timeout);
      }
      // The layout (by host or flat) is known only now: the switch's own line said "not connected yet".
      LOG.info("{} connected ring v{} as rank {} of {} ({})", topology.members().get(rank).workerId(), version(),
          rank, size(), formed.transport());
      return made;
    } catch (IOException | RuntimeException e) {
      synchronized (this) {
        if (ring != formed) {
          formed.close();
        }
      }
      throw e;
    }
  }

  private void failIfOver() throws IOException {
    if (abortedBecause != null) {
      throw new IOException("ring v" + version() + " aborted before it was connected: " + abortedBecause);
    }
    if (closed) {
      throw new IOException("ring v" + version() + " was closed before it was connected");
    }
  }

  private <T> T await(Future<T> f, String what) throws IOException {
    try {
      return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new IOException(what + " failed: " + cause.getMessage(), cause);
    } catch (CancellationException e) {
      String why;
      synchronized (this) {
        why = abortedBecause != null ? "aborted: " + abortedBecause : "abandoned";
      }
      throw new IOException(what + " " + why, e);
    } catch (TimeoutException e) {
      throw new CollectiveTimeoutException(what + " did not complete within " + timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      InterruptedIOException ie = new InterruptedIOException(what + " interrupted");
      ie.initCause(e);
      throw ie;
    }
  }

  /**
   * Makes the all-reduce in progress, or the next one, fail at once, from any thread (a member of
   * this ring was declared failed); a ring still being connected stops connecting.
   */
  void abort(String why) {
    RingAllReduce a;
    synchronized (this) {
      abortedBecause = why;
      a = allReduce;
    }
    if (a != null) {
      a.abort(why);
    } else {
      cancelPending();
    }
  }

  /** Closes its links; an all-reduce running on another thread fails on them. */
  @Override
  public void close() {
    RingAllReduce a;
    Ring r;
    synchronized (this) {
      closed = true;
      a = allReduce;
      r = ring;
    }
    if (a != null) {
      try {
        a.close();
      } catch (IOException e) {
        // Only the selector: the links are closed below either way.
      }
    }
    if (r != null) {
      r.close();
    } else {
      cancelPending();
    }
  }

  private void cancelPending() {
    if (before != null) {
      before.cancel(true);
    }
    if (connecting != null) {
      connecting.cancel(true);
      if (connecting.isDone() && !connecting.isCancelled()) {
        try {
          connecting.get().close();
        } catch (ExecutionException | InterruptedException | CancellationException e) {
          // Never connected: nothing to close.
        }
      }
    }
  }
}
