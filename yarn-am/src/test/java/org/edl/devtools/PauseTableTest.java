package org.edl.devtools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.log4j.Level;
import org.apache.log4j.SimpleLayout;
import org.apache.log4j.WriterAppender;
import org.edl.bench.ScalingAnalysis;
import org.edl.bench.Timelines;
import org.edl.bench.Timelines.Row;
import org.junit.jupiter.api.Test;

/**
 * The demo's closing table on timelines recorded the way the workers write them, and the changes
 * the way the story saw them: late (the AM answers "scaling" until a change is over) and without
 * the sizes in between.
 */
class PauseTableTest {
  private static final long T0 = 1_764_000_000_000L;

  /**
   * Issue 38: the shrink for alice went 6 -> 5 -> 4 in two switches 13 steps apart and the growth
   * back 4 -> 5 -> 6; the story saw each seconds later as one change, and the table said "not
   * measured" for both, after a raw log line.
   */
  @Test
  void aChangeMadeInTwoSwitchesShowsTheirPausesAddedUp() {
    Recording r = new Recording("a", "b", "c", "d", "e", "f").train(500);
    long shrinkBegan = r.now;
    r.switchTo(300, List.of("f"), List.of()).train(13).switchTo(250, List.of("e"), List.of()).train(300);
    long shrinkSeen = r.now - 300 * Recording.STEP_MS + 4_000;
    long growthBegan = r.now;
    r.switchTo(900, List.of(), List.of("g")).train(13).switchTo(700, List.of(), List.of("h")).train(200);
    long growthSeen = r.now - 200 * Recording.STEP_MS + 5_000;

    List<String> rows = tableOf(r, List.of(new SeenChange("shrank", shrinkSeen, 6, 4),
        new SeenChange("grew", growthSeen, 4, 6)));

    assertEquals(List.of(
        row(shrinkBegan, "shrank | 6 -> 4 | 0.55 (2 switches: 0.30 + 0.25)"),
        row(growthBegan, "grew | 4 -> 6 | 1.60 (2 switches: 0.90 + 0.70)")), rows);
  }

  @Test
  void eachSwitchTheStorySawIsARowOfItsOwn() {
    Recording r = new Recording("a", "b", "c", "d", "e", "f").train(500);
    long first = r.now;
    r.switchTo(300, List.of("f"), List.of()).train(100);
    long firstSeen = r.now;
    long second = r.now;
    r.switchTo(250, List.of("e"), List.of()).train(100);

    assertEquals(List.of(row(first, "shrank | 6 -> 5 | 0.30"), row(second, "shrank | 5 -> 4 | 0.25")),
        tableOf(r, List.of(new SeenChange("shrank", firstSeen, 6, 5), new SeenChange("shrank", r.now, 5, 4))));
  }

  /**
   * A worker killed outright leaves no timeline, and its recovery is no switch: the story measures
   * that row itself. The replacement's join after it is a switch like any other, recorded by the
   * survivors although the ring's batches never counted 6 again before it.
   */
  @Test
  void aKilledWorkersRowKeepsItsOwnPauseAndTheReplacementIsMeasured() {
    Recording r = new Recording("a", "b", "c", "d", "e").train(200);
    long grewTo6 = r.now;
    r.switchTo(400, List.of(), List.of("victim")).train(50).forget("victim").train(150);
    long killed = r.now - 150 * Recording.STEP_MS;
    long replaced = r.now;
    r.switchTo(800, List.of(), List.of("replacement")).train(100);

    assertEquals(List.of(row(grewTo6, "grew | 5 -> 6 | 0.40"),
        row(killed, "worker killed, recovered | 6 -> 5 | 2.5 (until training again)"),
        row(replaced, "grew | 5 -> 6 | 0.80")),
        tableOf(r, List.of(new SeenChange("grew", grewTo6 + 3_000, 5, 6),
            new SeenChange("worker killed, recovered", killed, 6, 5, "2.5 (until training again)"),
            new SeenChange("grew", r.now, 5, 6))));
  }

  @Test
  void aChangeTheTimelinesDoNotHoldSaysSoInItsRow() {
    Recording r = new Recording("a", "b").train(100);
    long seen = r.now;
    assertEquals(List.of(row(seen, "grew | 2 -> 3 | not measured (no such switches in the workers' timelines)")),
        tableOf(r, List.of(new SeenChange("grew", seen, 2, 3))));
  }

  /** The table's rows, its header checked and left out; nothing logged where the console shows it. */
  private static List<String> tableOf(Recording r, List<SeenChange> changes) {
    StringWriter logged = new StringWriter();
    WriterAppender appender = new WriterAppender(new SimpleLayout(), logged);
    appender.setThreshold(Level.INFO);
    org.apache.log4j.Logger edl = org.apache.log4j.Logger.getLogger("org.edl");
    edl.addAppender(appender);
    List<String> lines;
    try {
      lines = new PauseTable(T0, new ScalingAnalysis(r.timelines())).lines(changes);
    } finally {
      edl.removeAppender(appender);
    }
    assertEquals("", logged.toString(), "bin/edl puts org.edl's INFO on the console, amid the table");
    assertEquals(List.of("| t (s) | change | workers | training paused (s) |", "|---:|---|---|---:|"),
        lines.subList(0, 2));
    return lines.subList(2, lines.size());
  }

  private static String row(long atMs, String rest) {
    return String.format(java.util.Locale.ROOT, "| %.0f | %s |", (atMs - T0) / 1000.0, rest);
  }

  /**
   * Timelines as the workers write them: every member's batches, 40 ms each, the ring's steps in
   * lockstep; a switch pauses the ring by its cost and each member records it, leavers and
   * newcomers included.
   */
  private static final class Recording {
    static final long STEP_MS = 40;
    final Map<String, List<Row>> rows = new TreeMap<>();
    final List<String> ring = new ArrayList<>();
    long now = T0 + 20_000;
    long step;

    Recording(String... members) {
      for (String m : members) {
        join(m);
      }
    }

    Recording train(int steps) {
      for (int i = 0; i < steps; i++, step++, now += STEP_MS) {
        for (String m : ring) {
          rows.get(m).add(new Row("batch", step, now, now + STEP_MS, ""));
        }
      }
      return this;
    }

    /** After the last step trained, the ring loses {@code leavers} and gains {@code joiners}, pausing {@code costMs}. */
    Recording switchTo(long costMs, List<String> leavers, List<String> joiners) {
      int before = ring.size();
      String sizes = before + "->" + (before - leavers.size() + joiners.size());
      for (String m : ring) {
        String role = leavers.contains(m) ? "leaver" : joiners.isEmpty() ? "survivor" : "broadcaster";
        rows.get(m).add(new Row("switch", step - 1, now, now + costMs, role + " " + sizes));
      }
      ring.removeAll(leavers);
      for (String j : joiners) {
        join(j);
        rows.get(j).add(new Row("switch", step - 1, now, now + costMs, "joiner " + sizes));
      }
      now += costMs;
      return this;
    }

    /** {@code member} was killed: it stops, and its timeline never reaches HDFS. */
    Recording forget(String member) {
      ring.remove(member);
      rows.remove(member);
      return this;
    }

    private void join(String m) {
      ring.add(m);
      rows.put(m, new ArrayList<>(List.of(new Row("process", -1, now - 5_000, now - 4_000, ""))));
    }

    Timelines timelines() {
      return new Timelines(new TreeMap<>(rows));
    }
  }
}
