package org.edl.am;

import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.LongSupplier;
import org.edl.job.Growth;

/**
 * When a job asks YARN for one more worker by itself: the decisions only, no YARN here (the
 * fleet carries them out). Two reasons to ask:
 *
 * <ul>
 *   <li>the job runs with fewer workers than it asks for (its {@code --workers}, or the size its
 *       user last set by hand, {@link #requestIs}): it started at its minimum, or the scheduler
 *       took workers back; it asks for the rest one at a time;
 *   <li>growth is on and the job is below max-workers: it asks while one more worker adds at least
 *       {@link Growth#efficiency()} of what an average worker adds now, by the {@link
 *       ThroughputCurve}. Where the curve does not know the next size yet, the last step up
 *       decides: a job whose last added worker paid goes on, one whose did not stops (throughput
 *       curves flatten, they seldom turn up again). Where it knows neither the size it runs at
 *       nor the one below, it waits for the measurement.
 * </ul>
 *
 * Where the curve already knows the sizes ahead, it asks at once for every further worker whose
 * step pays ({@link Decision#count}); otherwise one at a time, since the next one is decided with
 * the throughput the last one brought. Never while the job is not steady (starting, changing,
 * profiling), never with a request in flight, and never within the hold-off after the job gave workers back, so that the
 * scheduler's warning is not answered by a new request. Not thread-safe: the AM's main thread.
 */
public final class GrowthPolicy {
  /** The kinds of reasons: the fleet logs a decision when its kind changes, not its figures. */
  public enum Reason { CEILING, IN_FLIGHT, PAUSED, NOT_STEADY, HOLDING_OFF, REST_OF_REQUEST, IDLE_GPUS, MEASURING,
    CURVE, TRYING, LAST_DID_NOT_PAY }

  /** Whether to ask now, for how many workers ({@code count}, 0 when not asking), and why. */
  public record Decision(boolean ask, int count, Reason reason, String why) {
    static Decision ask(Reason reason, String why) {
      return new Decision(true, 1, reason, why);
    }

    static Decision hold(Reason reason, String why) {
      return new Decision(false, 0, reason, why);
    }

    Decision times(int n) {
      return new Decision(ask, n, reason, why);
    }
  }

  private final int submitted;
  /** The workers the job asks for: as submitted, until its user sets a size by hand. */
  private int requested;
  private final int max;
  private final Growth growth;
  private final ThroughputCurve curve;
  private final LongSupplier millis;
  /** Extras asked for and not yet granted or withdrawn. */
  private int inFlight;
  private boolean paused;
  private long holdOffUntil = Long.MIN_VALUE;
  /** The size the job's last extra took it to, until that extra is judged; 0: none to judge. */
  private int grewTo;

  /**
   * @param requested the workers the job was submitted with
   * @param max       max-workers
   * @param millis    the AM's clock
   */
  /** How the job carries out its own changes: stop-free, or stop-resume (the baseline). */
  public org.edl.job.ScaleMode mode() {
    return growth.mode();
  }

  public GrowthPolicy(int requested, int max, Growth growth, ThroughputCurve curve, LongSupplier millis) {
    this.submitted = requested;
    this.requested = requested;
    this.max = max;
    this.growth = growth;
    this.curve = curve;
    this.millis = millis;
  }

  /** The decision for a job of {@code workers} workers; {@code steady}: running with no change under way. */
  public Decision next(int workers, boolean steady) {
    int ceiling = growth.enabled() ? max : requested;
    if (workers >= ceiling) {
      return Decision.hold(Reason.CEILING, growth.enabled() ? "at max-workers=" + max : "at the " + requested + " workers asked for");
    }
    if (inFlight > 0) {
      return Decision.hold(Reason.IN_FLIGHT, inFlight == 1 ? "a request for one more worker is in flight"
          : "requests for " + inFlight + " more workers are in flight");
    }
    if (paused) {
      return Decision.hold(Reason.PAUSED, "a profile is changing the job's size");
    }
    if (!steady) {
      return Decision.hold(Reason.NOT_STEADY, "the job is not steady");
    }
    long now = millis.getAsLong();
    if (now < holdOffUntil) {
      return Decision.hold(Reason.HOLDING_OFF, "gave workers back: asking again no sooner than " + growth.holdOffMs() + " ms later");
    }
    if (workers < requested) {
      return Decision.ask(Reason.REST_OF_REQUEST, "running " + workers + " of the " + requested + " workers asked for");
    }
    if (!growth.followsCurve()) {
      return Decision.ask(Reason.IDLE_GPUS, "growing into idle GPUs up to max-workers=" + max);
    }
    Decision d = worthOneMore(workers);
    return d.ask() && d.reason() == Reason.CURVE ? d.times(payingSteps(workers, ceiling)) : d;
  }

  /**
   * How many workers to ask for at once where the curve knows the sizes ahead: every further size
   * up to {@code ceiling} whose step pays, by the same judgement as the first. Asking for them
   * together lets YARN grant them in one round and the job take them in one change, rather than
   * one change per worker with a round trip to YARN between (a 4 -> 8 growth took 14 s that way
   * on the embedded cluster); where the curve does not know a size, it stops there and the next
   * decision is taken with what the job measures.
   */
  private int payingSteps(int workers, int ceiling) {
    int n = workers;
    while (n < ceiling) {
      OptionalDouble from = curve.at(n);
      OptionalDouble to = curve.at(n + 1);
      if (from.isEmpty() || to.isEmpty() || !judge(n, from.getAsDouble(), to.getAsDouble(), "", Reason.CURVE).ask()) {
        break;
      }
      n++;
    }
    return Math.max(1, n - workers);
  }

  private Decision worthOneMore(int n) {
    OptionalDouble now = curve.at(n);
    if (now.isEmpty()) {
      return Decision.hold(Reason.MEASURING, "measuring the throughput at " + n + " workers");
    }
    OptionalDouble next = curve.at(n + 1);
    if (next.isPresent()) {
      return judge(n, now.getAsDouble(), next.getAsDouble(), "the curve says", Reason.CURVE);
    }
    OptionalDouble below = n > 1 ? curve.at(n - 1) : OptionalDouble.empty();
    if (below.isEmpty()) {
      return Decision.ask(Reason.TRYING, "trying " + (n + 1) + " workers: the throughput there is not known yet");
    }
    Decision last = judge(n - 1, below.getAsDouble(), now.getAsDouble(), "the last worker added", Reason.TRYING);
    return last.ask() ? Decision.ask(Reason.TRYING, "trying " + (n + 1) + " workers: " + last.why())
        : Decision.hold(Reason.LAST_DID_NOT_PAY, last.why());
  }

  /** Whether going from {@code n} to {@code n + 1} workers (at {@code from} and {@code to} samples/s) pays. */
  private Decision judge(int n, double from, double to, String source, Reason reason) {
    double average = from / n;
    double gain = to - from;
    String figures = String.format(Locale.ROOT, "%s: %d -> %d workers adds %.1f samples/s, %.2f of an average"
        + " worker (efficiency %.2f)", source, n, n + 1, gain, average > 0 ? gain / average : 0, growth.efficiency());
    return gain >= growth.efficiency() * average && gain > 0 ? Decision.ask(reason, figures)
        : Decision.hold(reason, figures);
  }

  /**
   * Whether to give back the extra that took the job to {@code workers}: once the curve has
   * settled at that size, an extra that did not add {@link Growth#efficiency()} of an average
   * worker goes back (the ask was a trial where the curve did not know the size yet, or the
   * measurement turned out worse than it said). Asking again is then held by the curve itself,
   * which now knows the size. Never below the workers the job asked for, never while the job
   * changes or another extra is in flight; empty also once the extra paid.
   */
  public Optional<String> giveBackLast(int workers, boolean steady) {
    if (grewTo == 0 || !steady || paused || inFlight > 0) {
      return Optional.empty();
    }
    if (workers != grewTo || workers <= requested || !growth.followsCurve()) {
      grewTo = 0; // another change moved the job: nothing of ours left to judge
      return Optional.empty();
    }
    OptionalDouble now = curve.at(workers);
    OptionalDouble below = curve.at(workers - 1);
    if (now.isEmpty() || below.isEmpty() || !curve.settled(workers)) {
      return Optional.empty();
    }
    Decision paid = judge(workers - 1, below.getAsDouble(), now.getAsDouble(), "measured", Reason.LAST_DID_NOT_PAY);
    grewTo = 0;
    return paid.ask() ? Optional.empty() : Optional.of(paid.why());
  }

  /** An extra the policy asked for joined: the job runs {@code workers} workers now. */
  public void grew(int workers) {
    grewTo = workers;
  }

  /** The fleet asked YARN for {@code count} more workers. */
  public void asked(int count) {
    inFlight += count;
  }

  /** One extra asked for was granted. */
  public void answered() {
    inFlight = Math.max(0, inFlight - 1);
  }

  /** Every extra asked for and not granted was withdrawn. */
  public void withdrawn() {
    inFlight = 0;
  }

  public boolean inFlight() {
    return inFlight > 0;
  }

  /** The job gave workers back (warned by the scheduler, or told to scale in): hold off from now. */
  public void gaveBack() {
    holdOffUntil = millis.getAsLong() + growth.holdOffMs();
  }

  /**
   * The job's user set its size by hand ({@code edl scale-out}, {@code scale-in}): from now on
   * that is what the job asks for. Otherwise a user's scale-in would be undone once the hold-off
   * passed (a job asks for the rest of its request even without growth), and workers a user's
   * scale-out added and the scheduler then took back would never be asked for again.
   */
  public void requestIs(int workers) {
    requested = Math.max(1, Math.min(max, workers));
  }

  /** The size the user set by hand, or 0 while the job asks for what it was submitted with. */
  public int restatedRequest() {
    return requested == submitted ? 0 : requested;
  }

  /** Until when (wall clock, ms) nothing is asked because the job gave workers back; 0: no hold-off. */
  public long holdOffUntilMs() {
    return holdOffUntil == Long.MIN_VALUE ? 0 : holdOffUntil;
  }

  /** A hold-off a previous AM attempt started (journaled); a later one already running is kept. */
  public void holdOffUntil(long untilMs) {
    if (untilMs > 0) {
      holdOffUntil = Math.max(holdOffUntil, untilMs);
    }
  }

  /** While a profile changes the job's size, nothing is asked. */
  public void pause(boolean pause) {
    paused = pause;
  }
}
