package org.edl.worker.runtime;

import org.edl.job.WorkerEnv;

/**
 * The leader declared this worker failed (it missed its sync, or its ZooKeeper session ended)
 * and refuses it: the job went on without it. The worker exits with
 * {@link WorkerEnv#EXIT_FENCED} so that the AM counts a failure and may start a replacement.
 */
public final class FencedException extends Exception {
  private static final long serialVersionUID = 1L;

  public FencedException(String message, Throwable cause) {
    super(message, cause);
  }
}
