package org.edl.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChaosReportTest {
  @TempDir
  Path dir;

  private static final List<ChaosRun> RUNS = List.of(
      new ChaosRun(1, "kill-worker@12.3;pause-leader@30.1/25s", "SUCCEEDED", 900, 900, true, true, 14.25, "ok"),
      new ChaosRun(2, "kill-am@20.0", "FAILED", 412, 900, false, false, Double.NaN, "AM gave up"),
      new ChaosRun(3, "odd, \"quoted\" faults", ChaosRun.TIMEOUT, -1, 900, false, false, 3.5, ""),
      new ChaosRun(4, "kill-leader@40.5", "SUCCEEDED", 900, 900, true, false, 22.0, "no model.bin"));

  @Test
  void theCsvHasTheAgreedHeaderAndReadsBackAsWritten() throws IOException {
    Path csv = dir.resolve("out/chaos.csv");
    new ChaosReport(RUNS).writeCsv(csv);
    List<String> lines = Files.readAllLines(csv);
    assertEquals("seed,faults,outcome,final_step,steps,samples_ok,model_ok,recovery_s_max", lines.get(0));
    assertEquals("1,kill-worker@12.3;pause-leader@30.1/25s,SUCCEEDED,900,900,true,true,14.25", lines.get(1));
    assertEquals("2,kill-am@20.0,FAILED,412,900,false,false,NaN", lines.get(2));
    assertEquals("3,\"odd, \"\"quoted\"\" faults\",TIMEOUT,-1,900,false,false,3.50", lines.get(3));

    List<ChaosRun> back = ChaosReport.readCsv(csv).runs();
    assertEquals(RUNS.size(), back.size());
    for (int i = 0; i < RUNS.size(); i++) {
      ChaosRun w = RUNS.get(i);
      ChaosRun r = back.get(i);
      assertEquals(w.seed(), r.seed());
      assertEquals(w.faults(), r.faults());
      assertEquals(w.outcome(), r.outcome());
      assertArrayEquals(new long[] {w.finalStep(), w.steps()}, new long[] {r.finalStep(), r.steps()});
      assertEquals(w.samplesOk(), r.samplesOk());
      assertEquals(w.modelOk(), r.modelOk());
      assertEquals(w.recoverySecondsMax(), r.recoverySecondsMax(), 0.005);
      assertEquals("", r.note(), "the note is not in the CSV");
    }
  }

  @Test
  void aFileWithAnotherHeaderIsRefused() throws IOException {
    Path csv = dir.resolve("recovery.csv");
    Files.writeString(csv, "mode,recovery_s\nconsistent,1.0\n");
    IOException e = assertThrows(IOException.class, () -> ChaosReport.readCsv(csv));
    assertTrue(e.getMessage().contains("not a chaos.csv"), e.getMessage());
    Files.writeString(csv, ChaosReport.CSV_HEADER + "\n1,x,SUCCEEDED,1\n");
    assertThrows(IOException.class, () -> ChaosReport.readCsv(csv));
  }

  @Test
  void theSummaryCountsOutcomesAndPromisesKept() {
    String s = new ChaosReport(RUNS).summary();
    assertTrue(s.startsWith("4 run(s): {FAILED=1, SUCCEEDED=2, TIMEOUT=1}; 1 ended as promised"), s);
    assertTrue(s.endsWith("longest recovery 22.00 s"), s);
    assertEquals(ChaosReport.SUCCEEDED_NOT_AS_PROMISED, ChaosReport.colourKey(RUNS.get(3)));
  }

  @Test
  void theChartIsAPng() throws IOException {
    Path png = dir.resolve("chaos.png");
    new ChaosReport(RUNS).writeChart(png);
    byte[] head = new byte[8];
    System.arraycopy(Files.readAllBytes(png), 0, head, 0, 8);
    assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, head);
  }
}
