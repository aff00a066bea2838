package org.edl.worker.data;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.util.Arrays;

/**
 * Reads comma-separated text: the label in the first column, numeric features after it. A first
 * row in which no field is a number is a header and skipped; a first row that mixes numbers and
 * text is bad data and reported like any other line. Blank lines and lines starting with
 * {@code #} are ignored. Labels may be any numbers and are mapped by {@link LabelMapper}.
 *
 * <p>Split by hand rather than with Commons CSV, which every other CSV of the project uses: on
 * 100,000 rows of 16 numeric features Commons CSV took about 3.5 times as long (median 698 ms
 * against 198 ms, and 1024 against 279 on a second run, on a loaded 2-core machine), and this
 * is the training data's parse. {@code CsvReaderBench} in the test sources measures both.
 */
public final class CsvReader {

  /** Receives each parsed row; {@code features} is reused between calls. */
  interface RowSink {
    void row(double label, float[] features);
  }

  private CsvReader() {}

  /** Reads the whole file into memory. {@code source} names the file in error messages. */
  public static Dataset read(Reader in, String source) throws IOException {
    LabelMapper labels = new LabelMapper(source);
    Rows rows = new Rows();
    int width = scan(in, source, (label, features) -> {
      labels.add(label);
      rows.add(label, features);
    });
    if (rows.count == 0) {
      throw LineErrors.empty(source);
    }
    return new Dataset(Arrays.copyOf(rows.features, rows.count * width),
        labels.map(rows.labels, rows.count), width, labels.classCount());
  }

  /** Streams through the file keeping only its shape. */
  public static DatasetSummary summarize(Reader in, String source) throws IOException {
    LabelMapper labels = new LabelMapper(source);
    long[] count = new long[1];
    int width = scan(in, source, (label, features) -> {
      labels.add(label);
      count[0]++;
    });
    if (count[0] == 0) {
      throw LineErrors.empty(source);
    }
    return new DatasetSummary(count[0], width, labels.classCount());
  }

  /** Returns the feature count (columns minus the label), or 0 when no data row was found. */
  static int scan(Reader reader, String source, RowSink sink) throws IOException {
    BufferedReader in = reader instanceof BufferedReader b ? b : new BufferedReader(reader, 1 << 16);
    int columns = -1;
    long columnsLine = 0;
    float[] features = null;
    boolean first = true;
    long lineNo = 0;
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      lineNo++;
      String body = line.strip();
      if (body.isEmpty() || body.charAt(0) == '#') {
        continue;
      }
      String[] fields = body.split(",", -1);
      if (first) {
        first = false;
        if (isHeader(fields)) {
          continue;
        }
      }
      if (columns < 0) {
        if (fields.length < 2) {
          throw LineErrors.line(source, lineNo, "a CSV row needs a label and at least one feature");
        }
        columns = fields.length;
        columnsLine = lineNo;
        features = new float[columns - 1];
      } else if (fields.length != columns) {
        throw LineErrors.line(source, lineNo, fields.length + " fields, but line "
            + columnsLine + " has " + columns);
      }
      double label = Numbers.parseFinite(unquote(fields[0]));
      if (Double.isNaN(label)) {
        throw LineErrors.field(source, lineNo, 1, fields[0], "label is not a number");
      }
      for (int f = 1; f < columns; f++) {
        double v = Numbers.parseFinite(unquote(fields[f]));
        if (Double.isNaN(v)) {
          throw LineErrors.field(source, lineNo, f + 1, fields[f], "feature value is not a number");
        }
        features[f - 1] = (float) v;
        if (Float.isInfinite(features[f - 1])) {
          throw LineErrors.field(source, lineNo, f + 1, fields[f], "feature value is out of float range");
        }
      }
      sink.row(label, features);
    }
    return Math.max(columns - 1, 0);
  }

  private static boolean isHeader(String[] fields) {
    for (String f : fields) {
      if (!Double.isNaN(Numbers.parseFinite(unquote(f)))) {
        return false;
      }
    }
    return true;
  }

  private static String unquote(String field) {
    String t = field.strip();
    if (t.length() >= 2 && t.charAt(0) == '"' && t.charAt(t.length() - 1) == '"') {
      return t.substring(1, t.length() - 1).strip();
    }
    return t;
  }

  private static final class Rows {
    int count;
    double[] labels = new double[1024];
    float[] features = new float[0];

    void add(double label, float[] row) {
      if (count == labels.length) {
        labels = Arrays.copyOf(labels, count * 2);
      }
      long needed = (long) (count + 1) * row.length;
      if (needed > features.length) {
        long grown = Math.max(needed, Math.max(1024L * row.length, features.length * 2L));
        if (grown > Integer.MAX_VALUE - 8) {
          grown = needed;
        }
        if (grown > Integer.MAX_VALUE - 8) {
          throw new IllegalStateException("more than 2^31 feature values");
        }
        features = Arrays.copyOf(features, (int) grown);
      }
      System.arraycopy(row, 0, features, count * row.length, row.length);
      labels[count++] = label;
    }
  }
}
