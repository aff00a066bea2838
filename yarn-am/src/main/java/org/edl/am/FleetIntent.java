package org.edl.am;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.edl.am.FleetChange.Migration;
import org.edl.am.FleetChange.Replacement;
import org.edl.am.FleetChange.Restart;
import org.edl.am.FleetChange.ScaleIn;
import org.edl.am.FleetChange.ScaleOut;
import org.edl.am.FleetChange.Shown;

/**
 * What the fleet is steering towards, in the words a later AM attempt needs to take over a
 * change the dead one had under way: the target, the stop-resume changes so far, and the change
 * under way ({@link FleetChange#takenOver} says what of it a new attempt keeps). Kept in ZooKeeper
 * by {@link FleetJournal}; plain text, one {@code key=value} a line, read only by the next
 * attempt of the same job. What the leader's reports showed of the change is not kept: the new
 * attempt waits for the leader's next ones.
 *
 * @param restarts stop-resume changes so far (each gets its own checkpoint directory)
 * @param change   the change under way, or null
 * @param failures the worker failures counted so far: a new attempt goes on counting from them,
 *                 so an AM failover does not give the job its failure budget back
 * @param holdOffUntilMs wall-clock time until which the job asks for no extra worker because it
 *                 gave workers back (0: none), so that a failover does not end the hold-off early
 * @param requestedWorkers the size the job's user set by hand, which it asks for since (0: as
 *                 submitted), so that a failover does not bring back the submitted size
 */
record FleetIntent(int target, int restarts, FleetChange change, List<WorkerFailures.Failure> failures,
    long holdOffUntilMs, int requestedWorkers) {

  private static final Set<String> KEYS = Set.of("target", "restarts", "change", "count", "leaving",
      "migration.fromHost", "migration.toHost", "migration.held", "migration.awaited", "migration.newcomers",
      "restart.size", "restart.previousTarget", "restart.directory", "restart.pausedFor", "growth.holdOffUntilMs",
      "growth.requested");

  private static final String FAILURE = "failure.";

  FleetIntent {
    change = change == null ? null : change.with(Shown.NOTHING);
    failures = List.copyOf(failures);
  }

  FleetIntent(int target, int restarts, FleetChange change) {
    this(target, restarts, change, List.of());
  }

  FleetIntent(int target, int restarts, FleetChange change, List<WorkerFailures.Failure> failures) {
    this(target, restarts, change, failures, 0);
  }

  FleetIntent(int target, int restarts, FleetChange change, List<WorkerFailures.Failure> failures,
      long holdOffUntilMs) {
    this(target, restarts, change, failures, holdOffUntilMs, 0);
  }

  /** The stop-resume under way, or null. */
  StopResume restart() {
    return change instanceof Restart r ? r.plan() : null;
  }

  String encode() {
    Properties p = new Properties();
    p.setProperty("target", Integer.toString(target));
    p.setProperty("restarts", Integer.toString(restarts));
    if (change instanceof ScaleOut s) {
      p.setProperty("change", "SCALE_OUT");
      p.setProperty("count", Integer.toString(s.count()));
    } else if (change instanceof ScaleIn s) {
      p.setProperty("change", "SCALE_IN");
      p.setProperty("leaving", String.join(",", s.leavers()));
    } else if (change instanceof Migration m) {
      p.setProperty("change", "MIGRATION");
      p.setProperty("leaving", String.join(",", m.leavers()));
      p.setProperty("migration.fromHost", m.fromHost());
      p.setProperty("migration.toHost", m.toHost());
      p.setProperty("migration.held", Boolean.toString(m.held()));
      p.setProperty("migration.awaited", Integer.toString(m.awaited()));
      p.setProperty("migration.newcomers", String.join(",", m.newcomers()));
    } else if (change instanceof Restart r) {
      p.setProperty("change", "RESTART");
      p.setProperty("leaving", String.join(",", r.stopping()));
      p.setProperty("restart.size", Integer.toString(r.plan().size()));
      p.setProperty("restart.previousTarget", Integer.toString(r.plan().previousTarget()));
      p.setProperty("restart.directory", r.plan().directory());
      if (r.plan().pausedFor() != null) {
        p.setProperty("restart.pausedFor", r.plan().pausedFor());
      }
    } else if (change instanceof Replacement) {
      p.setProperty("change", "REPLACEMENT");
    }
    if (holdOffUntilMs > 0) {
      p.setProperty("growth.holdOffUntilMs", Long.toString(holdOffUntilMs));
    }
    if (requestedWorkers > 0) {
      p.setProperty("growth.requested", Integer.toString(requestedWorkers));
    }
    for (int i = 0; i < failures.size(); i++) {
      WorkerFailures.Failure f = failures.get(i);
      p.setProperty(FAILURE + i, f.containerId() + "|" + f.host() + "|" + f.how());
    }
    StringWriter out = new StringWriter();
    try {
      p.store(out, null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // Without the date line Properties writes: equal intents give equal text.
    return out.toString().lines().filter(l -> !l.startsWith("#")).sorted()
        .reduce("", (a, b) -> a + b + "\n");
  }

  /** @throws IllegalArgumentException the text is no intent this class wrote */
  static FleetIntent decode(String text) {
    Properties p = new Properties();
    try {
      p.load(new StringReader(text));
      List<WorkerFailures.Failure> failed = new ArrayList<>();
      for (int i = 0; p.getProperty(FAILURE + i) != null; i++) {
        String[] f = p.getProperty(FAILURE + i).split("\\|", 3);
        failed.add(new WorkerFailures.Failure(f[0], f[1], f[2]));
      }
      for (String key : p.stringPropertyNames()) {
        if (!KEYS.contains(key) && !key.startsWith(FAILURE)) {
          throw new IllegalArgumentException("unknown key " + key);
        }
      }
      List<String> leaving = list(p.getProperty("leaving", ""));
      String kind = p.getProperty("change");
      FleetChange change = kind == null ? null : switch (kind) {
        case "SCALE_OUT" -> new ScaleOut(Integer.parseInt(p.getProperty("count")), Shown.NOTHING);
        case "SCALE_IN" -> new ScaleIn(leaving, Shown.NOTHING);
        case "MIGRATION" -> new Migration(required(p, "migration.fromHost"), required(p, "migration.toHost"), leaving,
            Boolean.parseBoolean(p.getProperty("migration.held")), Integer.parseInt(p.getProperty("migration.awaited")),
            list(p.getProperty("migration.newcomers", "")), Shown.NOTHING);
        case "RESTART" -> new Restart(new StopResume(Integer.parseInt(p.getProperty("restart.size")),
            Integer.parseInt(p.getProperty("restart.previousTarget")), required(p, "restart.directory"),
            p.getProperty("restart.pausedFor")),
            leaving, Shown.NOTHING);
        case "REPLACEMENT" -> new Replacement(Shown.NOTHING);
        default -> throw new IllegalArgumentException("unknown change " + kind);
      };
      return new FleetIntent(Integer.parseInt(p.getProperty("target")),
          Integer.parseInt(p.getProperty("restarts", "0")), change, failed,
          Long.parseLong(p.getProperty("growth.holdOffUntilMs", "0")),
          Integer.parseInt(p.getProperty("growth.requested", "0")));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("not a fleet intent: " + text, e);
    }
  }

  private static String required(Properties p, String key) {
    String value = p.getProperty(key);
    if (value == null) {
      throw new IllegalArgumentException(key + " is missing");
    }
    return value;
  }

  private static List<String> list(String csv) {
    List<String> items = new ArrayList<>();
    for (String s : csv.split(",")) {
      if (!s.isBlank()) {
        items.add(s.strip());
      }
    }
    return items;
  }
}
