package org.edl.worker.script;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.edl.worker.collective.RingTopology;
import org.edl.worker.data.Dataset;
import org.edl.worker.data.UpcomingBatches;
import org.edl.worker.model.RingAware;
import org.edl.worker.model.StartsOverItself;
import org.edl.worker.model.StepAware;
import org.edl.worker.model.TrainableModel;

/**
 * A worker's several processes of one script ({@code --procs-per-worker}), one GPU each, all
 * members of the job's one process group, as {@code torchrun --nproc-per-node} starts them. Every
 * order that involves the group (a step, a new group, a state loaded, the end) reaches all of them
 * at once, each on a thread of its own, since each waits in the group's collectives for the
 * others; each trains its contiguous part of the worker's share of a step. The state is taken from
 * the first (they hold the same) and given to all.
 */
public final class ScriptProcesses
    implements TrainableModel, RingAware, StepAware, StartsOverItself, ServesRendezvous, AutoCloseable {
  private final List<ScriptModel> processes;
  private final ExecutorService threads;

  /** Takes over {@code processes}, each started as its {@link ScriptModel.Local}. */
  public ScriptProcesses(List<ScriptModel> processes) {
    if (processes.size() < 2) {
      throw new IllegalArgumentException("several processes, not " + processes.size());
    }
    this.processes = List.copyOf(processes);
    this.threads = Executors.newFixedThreadPool(processes.size(), r -> {
      Thread t = new Thread(r, "edl-script-process");
      t.setDaemon(true);
      return t;
    });
  }

  /** Checks that every process indexes the same samples; returns the data set they index. */
  public Dataset dataset() {
    for (ScriptModel p : processes) {
      if (p.datasetSize() != processes.get(0).datasetSize()) {
        throw new IllegalStateException("the script's processes index different data sets: " + processes);
      }
    }
    return processes.get(0).dataset();
  }

  /** The processes, in local rank order (for tests). */
  public List<ScriptModel> processes() {
    return processes;
  }

  @Override
  public int storePort() {
    return processes.get(0).storePort();
  }

  @Override
  public String name() {
    return processes.get(0).name();
  }

  @Override
  public float[] parameters() {
    return processes.get(0).parameters();
  }

  @Override
  public void ringFormed(RingTopology ring, int rank) {
    processes.forEach(p -> p.ringFormed(ring, rank));
  }

  @Override
  public void stepStarting(long step) {
    processes.forEach(p -> p.stepStarting(step));
  }

  @Override
  public void upcoming(UpcomingBatches batches) {
    processes.forEach(p -> p.upcoming(batches));
  }

  /** The slowest process's: the group's step waits for it. */
  @Override
  public double computeSeconds() {
    return processes.stream().mapToDouble(ScriptModel::computeSeconds).max().orElse(Double.NaN);
  }

  @Override
  public double accumulateGradients(Dataset data, int[] samples, int from, int to, float[] gradSum) {
    try {
      return onAll(p -> p.accumulateGradients(data, samples, from, to, gradSum)).stream()
          .mapToDouble(Double::doubleValue).sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void writeState(DataOutputStream out) throws IOException {
    processes.get(0).writeState(out);
  }

  @Override
  public void readState(DataInputStream in) throws IOException {
    byte[] state = processes.get(0).readOwnState(in);
    onAll(p -> {
      p.load(state);
      return null;
    });
  }

  @Override
  public void startOver() throws IOException {
    onAll(p -> {
      p.startOver();
      return null;
    });
  }

  @Override
  public void close() {
    try {
      onAll(p -> {
        p.close();
        return null;
      });
    } catch (IOException e) {
      // Each close already ended its process whatever happened.
    } finally {
      threads.shutdownNow();
    }
  }

  @FunctionalInterface
  private interface PerProcess<T> {
    T apply(ScriptModel p) throws IOException;
  }

  /**
   * Runs {@code action} on every process at once and waits for all (a process whose group broke
   * still returns once the others' did); the first failure, in local rank order, is rethrown as it
   * was thrown.
   */
  private <T> List<T> onAll(PerProcess<T> action) throws IOException {
    List<Future<T>> running = new ArrayList<>();
    for (ScriptModel p : processes) {
      running.add(threads.submit(() -> action.apply(p)));
    }
    List<T> results = new ArrayList<>();
    Throwable first = null;
    for (Future<T> f : running) {
      try {
        results.add(f.get());
      } catch (ExecutionException e) {
        first = first == null ? e.getCause() : first;
      } catch (InterruptedException e) {
        running.forEach(r -> r.cancel(true));
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("interrupted while the script's processes worked");
      }
    }
    if (first instanceof IOException io) {
      throw io;
    }
    if (first instanceof RuntimeException re) {
      throw re;
    }
    if (first instanceof Error err) {
      throw err;
    }
    return results;
  }

  @Override
  public String toString() {
    return processes.toString();
  }
}
