package org.edl.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.edl.bench.Timelines;
import org.edl.worker.runtime.Timeline;
import org.junit.jupiter.api.Test;

class SoakChecksTest {
  private static SoakChecks.WorkerEnd end(String how, long from, long to, String parameters) {
    return new SoakChecks.WorkerEnd(how, Timeline.Coverage.of(from, to), parameters);
  }

  @Test
  void aLeaverAndTwoStoppedWorkersThatCoverTheCursorOnceWithOneChecksumPass() {
    // The leaver trained [0, 100) alone; the two that stopped split [100, 300).
    SoakChecks.Verdict v = SoakChecks.judge(Map.of("c2", end("left", 0, 100, "aa"), "c3", end("stopped", 100, 200,
        "ff"), "c4", end("stopped", 200, 300, "ff")), 300);
    assertTrue(v.ok(), v.summary());
  }

  @Test
  void aRepeatedBatchOrAShortCursorOrTwoChecksumsOrAFailedWorkerFail() {
    SoakChecks.Verdict repeated = SoakChecks.judge(Map.of("c2", end("stopped", 0, 200, "ff"), "c3",
        end("stopped", 100, 200, "ff")), 300);
    assertFalse(repeated.coverageOk(), repeated.summary());
    assertTrue(repeated.summary().contains("NOT each once"), repeated.summary());

    SoakChecks.Verdict skipped = SoakChecks.judge(Map.of("c2", end("stopped", 0, 300, "ff")), 301);
    assertFalse(skipped.coverageOk(), skipped.summary());

    SoakChecks.Verdict diverged = SoakChecks.judge(Map.of("c2", end("stopped", 0, 150, "ff"), "c3",
        end("stopped", 150, 300, "fe")), 300);
    assertTrue(diverged.coverageOk());
    assertFalse(diverged.parametersOk(), diverged.summary());

    SoakChecks.Verdict failed = SoakChecks.judge(Map.of("c2", end("stopped", 0, 300, "ff"), "c3",
        end("failed", 0, 0, "")), 300);
    assertFalse(failed.endsOk());
    assertTrue(failed.summary().contains("c3=failed"), failed.summary());

    SoakChecks.Verdict noneStopped = SoakChecks.judge(Map.of("c2", end("left", 0, 300, "ff")), 300);
    assertFalse(noneStopped.parametersOk(), "no stopped worker is no evidence of identical parameters");
  }

  @Test
  void theEndIsReadFromTheTimelinesRowsAndATimelineWithoutThemEndedAbnormally() {
    List<Timelines.Row> rows = List.of(new Timelines.Row("batch", 3, 1, 2, ""),
        new Timelines.Row("end", 9, 5, 5, "stopped"),
        new Timelines.Row("trained", 9, 5, 5, "positions=12 fingerprint=ffffffffffffff01 parameters=1a2b"));
    SoakChecks.WorkerEnd e = SoakChecks.end("c2", rows);
    assertEquals("stopped", e.how());
    assertEquals(new Timeline.Coverage(12, 0xffffffffffffff01L), e.coverage());
    assertEquals("1a2b", e.parameters());

    assertEquals("no end row", SoakChecks.end("c3", rows.subList(0, 1)).how());
    assertThrows(IllegalArgumentException.class, () -> SoakChecks.end("c4",
        List.of(rows.get(1), new Timelines.Row("trained", 9, 5, 5, "fingerprint=1"))));
  }
}
