package org.edl.worker.runtime;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.edl.worker.model.TrainableModel;
import org.edl.worker.script.ServesRendezvous;

/**
 * The port of a script job's rendezvous store, handed from the thread that starts the script to
 * the one that registers the worker: the script binds the store itself as it starts (a port picked
 * for it beforehand could be taken in between), and the worker registers it, since the ring's first
 * member's store gathers each of the scripts' process groups.
 */
final class ScriptStorePort {
  private final CompletableFuture<Integer> port = new CompletableFuture<>();

  /** The job's model is ready: a script's tells the port; any other model of a script job is an error. */
  void modelReady(TrainableModel model, boolean scriptJob) {
    if (model instanceof ServesRendezvous script) {
      port.complete(script.storePort());
    } else if (scriptJob) {
      port.completeExceptionally(new IllegalStateException("the job runs a script but the worker's model is "
          + model.name() + ", which serves no rendezvous store"));
    }
  }

  /** Waits for the port at most {@code timeoutMs}; {@code startupTimeout} is named if it does not come. */
  int await(long timeoutMs, Duration startupTimeout) throws Exception {
    try {
      return port.get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    } catch (TimeoutException e) {
      throw new TimeoutException("the script did not report its rendezvous store within the startup timeout "
          + startupTimeout);
    }
  }
}
