package org.edl.worker.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.StringReader;
import org.edl.job.InvalidInputException;
import org.junit.jupiter.api.Test;

class LibsvmReaderTest {
  private static final String SOURCE = "hdfs://nn/data/train.libsvm";

  private static Dataset read(String text) throws IOException {
    return LibsvmReader.read(new StringReader(text), SOURCE);
  }

  private static InvalidInputException failure(String text) {
    return assertThrows(InvalidInputException.class, () -> read(text));
  }

  @Test
  void sparseRowsBecomeDenseAndTheWidthIsTheLargestIndex() throws IOException {
    Dataset d = read("""
        # a comment line
        +1 1:0.5 3:2

        -1 4:-1.25 2:1e-1   # indices need not be ascending
        """);
    assertEquals(2, d.size());
    assertEquals(4, d.featureCount());
    assertArrayEquals(new float[] {0.5f, 0, 2, 0, 0, 0.1f, 0, -1.25f}, d.features());
    assertArrayEquals(new int[] {1, 0}, d.labels(), "-1 < +1, so -1 is class 0");
    assertEquals(2, d.classCount());
  }

  @Test
  void sortedDistinctLabelsMapToConsecutiveClasses() throws IOException {
    Dataset d = read("7 1:1\n3 1:1\n5 1:1\n3 1:2\n2.5 1:0\n");
    assertArrayEquals(new int[] {3, 1, 2, 1, 0}, d.labels());
    assertEquals(4, d.classCount());
  }

  @Test
  void aRowWithOnlyALabelIsAllZeros() throws IOException {
    Dataset d = read("1\n2 2:3\n");
    assertArrayEquals(new float[] {0, 0, 0, 3}, d.features());
  }

  @Test
  void aBadValueNamesTheFileTheLineAndTheField() {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 16; i++) {
      text.append("1 1:0.5 2:1\n");
    }
    text.append("0 1:2 4:abc 5:1\n");
    InvalidInputException e = failure(text.toString());
    assertEquals("data", e.field());
    assertEquals(SOURCE, e.value());
    assertEquals("data=" + SOURCE + ": line 17, field 3 ('4:abc'): feature value is not a number",
        e.getMessage());
  }

  @Test
  void eachKindOfBadFieldIsNamed() {
    assertEquals("data=" + SOURCE + ": line 1, field 1 ('yes'): label is not a number",
        failure("yes 1:2\n").getMessage());
    assertEquals("data=" + SOURCE + ": line 2, field 2 ('x:2'): feature index is not a whole number",
        failure("1 1:1\n1 x:2\n").getMessage());
    assertEquals("data=" + SOURCE + ": line 1, field 2 ('0:2'): feature index must be 1 or more",
        failure("1 0:2\n").getMessage());
    assertEquals("data=" + SOURCE + ": line 1, field 3 ('7'): expected index:value",
        failure("1 1:2 7\n").getMessage());
    assertEquals("data=" + SOURCE + ": line 1, field 4 ('1:3'): feature index 1 appears more than once",
        failure("1 1:2 2:1 1:3\n").getMessage());
    assertEquals("data=" + SOURCE + ": line 1, field 2 ('1:NaN'): feature value is not a number",
        failure("1 1:NaN\n").getMessage());
    assertEquals("data=" + SOURCE + ": line 1, field 2 ('1:1e99'): feature value is out of float range",
        failure("1 1:1e99\n").getMessage());
  }

  @Test
  void aFileWithoutSamplesIsAClearError() {
    assertEquals("data=" + SOURCE + ": holds no samples (only blank lines, comments or a header)",
        failure("").getMessage());
    assertEquals("data=" + SOURCE + ": holds no samples (only blank lines, comments or a header)",
        failure("# nothing\n\n   \n").getMessage());
    assertEquals("data=" + SOURCE + ": no line has any feature", failure("1\n0\n").getMessage());
  }

  @Test
  void summaryStreamsToTheSameShapeAsAFullRead() throws IOException {
    String text = "1 3:1\n2 9:1 1:4\n3 2:2\n1 1:1\n";
    Dataset d = read(text);
    assertEquals(new DatasetSummary(d.size(), d.featureCount(), d.classCount()),
        LibsvmReader.summarize(new StringReader(text), SOURCE));
  }

  @Test
  void manyRowsGrowTheBuffers() throws IOException {
    StringBuilder text = new StringBuilder();
    for (int r = 0; r < 5000; r++) {
      text.append(r % 3).append(' ').append(r % 50 + 1).append(':').append(r).append('\n');
    }
    Dataset d = read(text.toString());
    assertEquals(5000, d.size());
    assertEquals(50, d.featureCount());
    assertEquals(4999f, d.feature(4999, 4999 % 50));
    assertEquals(4999 % 3, d.label(4999));
  }
}
