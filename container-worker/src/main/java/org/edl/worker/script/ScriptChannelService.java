package org.edl.worker.script;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.edl.thrift.EdlError;
import org.edl.thrift.ScriptChannel;
import org.edl.thrift.ScriptHello;
import org.edl.thrift.ScriptOrder;
import org.edl.thrift.ScriptReport;
import org.edl.worker.data.UpcomingBatches;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's end of {@link ScriptChannel}: hands the script one order at a time and gives the
 * training thread what the script reported on it. The script asks ({@code nextOrder}) and blocks
 * until the worker has an order; the worker's {@link #exchange} waits until the script has done
 * it and asked again. One script, one order in flight.
 */
final class ScriptChannelService implements ScriptChannel.Iface {
  private static final Logger LOG = LoggerFactory.getLogger(ScriptChannelService.class);

  private final ScriptHello hello;
  /** What the script announced in its hello. */
  record Announced(long datasetSize, int storePort) {}

  private final CompletableFuture<Announced> announced = new CompletableFuture<>();
  /** An order and what the script reports on it. */
  private record Exchange(ScriptOrder order, CompletableFuture<ScriptReport> report) {}

  private final SynchronousQueue<Exchange> orders = new SynchronousQueue<>();
  /** The order the script is carrying out: its next call reports on this one. */
  private volatile Exchange delivered;
  /** Why the script cannot go on (it failed, exited, or the worker gave up on it); null while it can. */
  private volatile String broken;
  /** The samples of the step being trained and the steps after it (null before the first step). */
  private volatile UpcomingBatches upcoming;
  /** Hears the script's signs of life ({@link ScriptLiveness#sign}). */
  private volatile Runnable signsOfLife = () -> { };

  ScriptChannelService(ScriptHello hello) {
    this.hello = hello;
  }

  @Override
  public ScriptHello hello(int pid, long size, int storePort) throws EdlError {
    if (size < 1) {
      throw refuse("dataset_size", size, "edl.init(dataset_size=" + size + "): the dataset must hold at least one sample");
    }
    if (storePort < 1 || storePort > 65535) {
      throw refuse("storePort", storePort, "the script's rendezvous store reported port " + storePort
          + ", not one in 1..65535 (is the edl package on its path the worker's?)");
    }
    LOG.info("Script (pid {}) connected: {} samples, rendezvous store on port {}", pid, size, storePort);
    announced.complete(new Announced(size, storePort));
    return hello;
  }

  private EdlError refuse(String field, long value, String message) {
    EdlError e = new EdlError(message);
    e.setField(field);
    e.setValue(Long.toString(value));
    announced.completeExceptionally(new IllegalArgumentException(message));
    return e;
  }

  @Override
  public ScriptOrder nextOrder(ScriptReport report) throws EdlError {
    Exchange done = delivered;
    if (done != null) {
      delivered = null;
      done.report().complete(report);
    }
    try {
      Exchange next;
      while ((next = orders.poll(1, TimeUnit.SECONDS)) == null) {
        if (broken != null) {
          throw new EdlError("the worker ended the script: " + broken);
        }
      }
      delivered = next;
      return next.order();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EdlError("the worker is shutting down");
    }
  }

  /** The most steps one {@link #upcomingSamples} call may ask for. */
  static final int MAX_UPCOMING = 1024;

  /** What {@link #upcomingSamples} answers from, set before each step's order. */
  void upcoming(UpcomingBatches batches) {
    upcoming = batches;
  }

  @Override
  public List<List<Integer>> upcomingSamples(long fromStep, int steps) throws EdlError {
    UpcomingBatches u = upcoming;
    if (u == null || fromStep < u.step()) {
      throw new EdlError("upcomingSamples(" + fromStep + ", " + steps + "): asked before step "
          + (u == null ? "0 was ordered" : u.step() + ", the step being trained"));
    }
    if (steps < 0 || steps > MAX_UPCOMING) {
      EdlError e = new EdlError("upcomingSamples asks for " + steps + " steps; at most " + MAX_UPCOMING);
      e.setField("steps");
      e.setValue(Integer.toString(steps));
      throw e;
    }
    List<List<Integer>> out = new ArrayList<>();
    for (int[] batch : u.samples(fromStep, steps)) {
      List<Integer> l = new ArrayList<>(batch.length);
      for (int i : batch) {
        l.add(i);
      }
      out.add(l);
    }
    return out;
  }

  void signsOfLifeTo(Runnable listener) {
    signsOfLife = listener;
  }

  @Override
  public void alive() {
    signsOfLife.run();
  }

  @Override
  public void failed(String error) {
    LOG.error("The script failed (its traceback is on its standard error above): {}", lastLine(error));
    fail("the script failed: " + lastLine(error));
  }

  /** What the script announced in its hello, waiting for it at most {@code timeoutMs}. */
  Announced awaitHello(long timeoutMs) throws Exception {
    try {
      return announced.get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new ScriptFailedException(e.getCause().getMessage());
    } catch (TimeoutException e) {
      throw new ScriptFailedException(brokenOr("the script did not call edl.init() within " + timeoutMs + " ms"));
    }
  }

  /** {@link #exchange}'s timeout for orders that take as long as the script needs (a step, a group). */
  static final long NO_TIMEOUT = -1;

  /**
   * Gives the script {@code order} and waits until it has carried it out, or the script failed or
   * exited, or {@code timeoutMs} passed ({@link #NO_TIMEOUT}: no limit).
   */
  ScriptReport exchange(ScriptOrder order, long timeoutMs) throws ScriptFailedException, InterruptedException {
    CompletableFuture<ScriptReport> done = new CompletableFuture<>();
    Exchange exchange = new Exchange(order, done);
    long deadline = timeoutMs == NO_TIMEOUT ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (!orders.offer(exchange, 100, TimeUnit.MILLISECONDS)) {
      checkAlive(order, deadline);
    }
    while (true) {
      try {
        return done.get(100, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        checkAlive(order, deadline);
      } catch (ExecutionException e) {
        throw new ScriptFailedException(e.getCause().getMessage());
      }
    }
  }

  private void checkAlive(ScriptOrder order, long deadline) throws ScriptFailedException {
    if (broken != null) {
      throw new ScriptFailedException(broken);
    }
    if (deadline != Long.MAX_VALUE && System.nanoTime() - deadline > 0) {
      throw new ScriptFailedException("the script did not carry out " + order.getAction() + " in time");
    }
  }

  /** The script's process ended with {@code status}; {@code lastErrors}: its last lines of standard error, if any. */
  void exited(int status, String lastErrors) {
    boolean greeted = announced.isDone() && !announced.isCompletedExceptionally();
    fail("the script exited with status " + status + (greeted ? "" : " before it called edl.init()") + lastErrors);
  }

  /** The script cannot go on: every wait ends with {@code why}. */
  void fail(String why) {
    if (broken == null) {
      broken = why;
    }
    announced.completeExceptionally(new IllegalStateException(why));
    Exchange done = delivered;
    if (done != null) {
      done.report().completeExceptionally(new IllegalStateException(why));
    }
  }

  String brokenOr(String otherwise) {
    return broken != null ? broken : otherwise;
  }

  private static String lastLine(String text) {
    String t = text.strip();
    int nl = t.lastIndexOf('\n');
    return nl < 0 ? t : t.substring(nl + 1);
  }
}
