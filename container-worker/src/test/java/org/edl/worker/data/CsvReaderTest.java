package org.edl.worker.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.StringReader;
import org.edl.job.InvalidInputException;
import org.junit.jupiter.api.Test;

class CsvReaderTest {
  private static final String SOURCE = "file:/tmp/train.csv";

  private static Dataset read(String text) throws IOException {
    return CsvReader.read(new StringReader(text), SOURCE);
  }

  private static String error(String text) {
    return assertThrows(InvalidInputException.class, () -> read(text)).getMessage();
  }

  @Test
  void aHeaderRowIsSkippedAndLabelsAreMapped() throws IOException {
    Dataset d = read("""
        label,x1,x2
        5,1.5,2
        # a comment
        -3, 0.25 ,"7"

        5,1e1,-2
        """);
    assertEquals(3, d.size());
    assertEquals(2, d.featureCount());
    assertEquals(2, d.classCount());
    assertArrayEquals(new float[] {1.5f, 2, 0.25f, 7, 10, -2}, d.features());
    assertArrayEquals(new int[] {1, 0, 1}, d.labels());
  }

  @Test
  void withoutAHeaderTheFirstRowIsData() throws IOException {
    Dataset d = read("0,1\n1,2\n");
    assertEquals(2, d.size());
    assertArrayEquals(new float[] {1, 2}, d.features());
  }

  @Test
  void aFirstRowThatMixesTextAndNumbersIsBadDataNotAHeader() {
    assertEquals("data=" + SOURCE + ": line 1, field 3 ('x'): feature value is not a number",
        error("1,2,x\n0,1,1\n"));
  }

  @Test
  void badFieldsAndRaggedRowsNameTheLine() {
    assertEquals("data=" + SOURCE + ": line 3, field 2 ('abc'): feature value is not a number",
        error("y,a,b\n1,2,3\n1,abc,3\n"));
    assertEquals("data=" + SOURCE + ": line 3, field 1 ('?'): label is not a number",
        error("y,a,b\n1,2,3\n?,2,3\n"));
    assertEquals("data=" + SOURCE + ": line 3, field 3 (''): feature value is not a number",
        error("y,a,b\n1,2,3\n1,2,\n"));
    assertEquals("data=" + SOURCE + ": line 4: 2 fields, but line 2 has 3",
        error("y,a,b\n1,2,3\n1,2,3\n1,2\n"));
    assertEquals("data=" + SOURCE + ": line 1: a CSV row needs a label and at least one feature",
        error("1\n2\n"));
  }

  @Test
  void aFileWithOnlyAHeaderIsEmpty() {
    assertEquals("data=" + SOURCE + ": holds no samples (only blank lines, comments or a header)",
        error("label,x\n\n"));
  }

  @Test
  void summaryMatchesAFullRead() throws IOException {
    String text = "y,a,b,c\n1,0,0,0\n2,1,1,1\n9,0,1,0\n";
    assertEquals(new DatasetSummary(3, 3, 3), CsvReader.summarize(new StringReader(text), SOURCE));
    Dataset d = read(text);
    assertEquals(3, d.featureCount());
    assertEquals(3, d.classCount());
  }
}
