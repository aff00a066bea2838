package org.edl.am;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * What the fleet is steering towards, in the words a later AM attempt needs to take over a
 * change the dead one had under way: the target, the containers asked to leave (and why), a
 * stop-resume's checkpoint and size, and a migration the leader holds. Kept in ZooKeeper by
 * {@link FleetJournal}; plain text, one {@code key=value} a line.
 *
 * @param restarts  stop-resume changes so far (each gets its own checkpoint directory)
 * @param restart   the stop-resume under way, or null
 * @param migration the migration the leader holds the leave of, or null
 */
record FleetIntent(int target, Map<String, WorkerFleet.Departure> departing, int restarts,
    StopResume restart, MigrationIntent migration) {

  /** A migration whose leave the leader holds: {@code newcomers} launched on {@code toHost} so far. */
  record MigrationIntent(String fromHost, String toHost, List<String> leavers, List<String> newcomers) {
    MigrationIntent {
      leavers = List.copyOf(leavers);
      newcomers = List.copyOf(newcomers);
    }
  }

  FleetIntent {
    departing = Map.copyOf(departing);
  }

  String encode() {
    Properties p = new Properties();
    p.setProperty("target", Integer.toString(target));
    p.setProperty("restarts", Integer.toString(restarts));
    StringBuilder leaving = new StringBuilder();
    departing.forEach((id, why) -> leaving.append(leaving.length() == 0 ? "" : ",").append(id).append(':').append(why));
    p.setProperty("departing", leaving.toString());
    if (restart != null) {
      p.setProperty("restart.size", Integer.toString(restart.size()));
      p.setProperty("restart.previousTarget", Integer.toString(restart.previousTarget()));
      p.setProperty("restart.directory", restart.directory());
    }
    if (migration != null) {
      p.setProperty("migration.fromHost", migration.fromHost());
      p.setProperty("migration.toHost", migration.toHost());
      p.setProperty("migration.leavers", String.join(",", migration.leavers()));
      p.setProperty("migration.newcomers", String.join(",", migration.newcomers()));
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
      Map<String, WorkerFleet.Departure> departing = new LinkedHashMap<>();
      for (String entry : list(p.getProperty("departing", ""))) {
        int colon = entry.lastIndexOf(':');
        departing.put(entry.substring(0, colon), WorkerFleet.Departure.valueOf(entry.substring(colon + 1)));
      }
      StopResume restart = p.getProperty("restart.directory") == null ? null
          : new StopResume(Integer.parseInt(p.getProperty("restart.size")),
              Integer.parseInt(p.getProperty("restart.previousTarget")), p.getProperty("restart.directory"));
      MigrationIntent migration = p.getProperty("migration.toHost") == null ? null
          : new MigrationIntent(p.getProperty("migration.fromHost"), p.getProperty("migration.toHost"),
              list(p.getProperty("migration.leavers", "")), list(p.getProperty("migration.newcomers", "")));
      return new FleetIntent(Integer.parseInt(p.getProperty("target")),
          departing, Integer.parseInt(p.getProperty("restarts", "0")), restart, migration);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("not a fleet intent: " + text, e);
    }
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
