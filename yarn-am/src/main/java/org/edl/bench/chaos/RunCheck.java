package org.edl.bench.chaos;

/**
 * One thing a chaos run is checked for once it has ended: the extension point of the bench.
 * {@link ChaosBench} applies its list of checks to every run; a new check is a new
 * implementation added to that list ({@link ChaosBench#withChecks}), nothing in the runner
 * changes. A failed check is reported in the run's note; the checks of {@link RunChecks} also
 * fill the columns of {@code chaos.csv}.
 */
public interface RunCheck {

  /** Short and stable: it names the check in the note. */
  String name();

  /** Looks at the run; must not throw for a run that went wrong, only say so. */
  Verdict check(RunEvidence run);

  /** Passed or not, and what was seen. */
  record Verdict(boolean ok, String note) {
    public static Verdict ok(String note) {
      return new Verdict(true, note);
    }

    public static Verdict failed(String note) {
      return new Verdict(false, note);
    }
  }
}
