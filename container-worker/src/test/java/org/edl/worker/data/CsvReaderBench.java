package org.edl.worker.data;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Locale;
import java.util.Random;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

/**
 * Times {@link CsvReader}'s own line splitting against Commons CSV on the same rows: 100,000 rows
 * of a label and 16 features, parsed to numbers and handed to the same sink, alternately, median
 * of the timed rounds. A benchmark, not a test; run it from container-worker with
 * {@code java -cp target/test-classes:target/classes:<commons-csv jar> org.edl.worker.data.CsvReaderBench [rows] [rounds]}.
 *
 * <p>{@link #commonsCsv} is the candidate that was measured: the same rules as
 * {@link CsvReader#scan} (header, blank and {@code #} lines, field counts, the errors'
 * line numbers), with Commons CSV doing the splitting and unquoting.
 */
public final class CsvReaderBench {
  private static final CSVFormat FORMAT = CSVFormat.DEFAULT.builder().setIgnoreEmptyLines(false)
      .setIgnoreSurroundingSpaces(true).build();

  private CsvReaderBench() {}

  public static void main(String[] args) throws IOException {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
    String text = data(rows, 16);
    System.out.printf(Locale.ROOT, "%d rows, %.1f MiB%n", rows, text.length() / 1048576.0);
    double[] own = new double[rounds];
    double[] commons = new double[rounds];
    for (int i = 0; i < 3; i++) { // warm-up
      run(text, false);
      run(text, true);
    }
    for (int i = 0; i < rounds; i++) {
      own[i] = run(text, false);
      commons[i] = run(text, true);
    }
    double a = median(own);
    double b = median(commons);
    System.out.printf(Locale.ROOT, "CsvReader.scan (split): median %.1f ms%n", a);
    System.out.printf(Locale.ROOT, "Commons CSV:            median %.1f ms (%+.0f%%)%n", b, 100 * (b / a - 1));
  }

  private static double run(String text, boolean commonsCsv) throws IOException {
    double[] sum = new double[1];
    CsvReader.RowSink sink = (label, features) -> sum[0] += label + features[0];
    long t0 = System.nanoTime();
    int width = commonsCsv ? commonsCsv(new StringReader(text), "bench", sink)
        : CsvReader.scan(new StringReader(text), "bench", sink);
    long t1 = System.nanoTime();
    if (width != 16 || sum[0] == 0) {
      throw new IllegalStateException("width " + width);
    }
    return (t1 - t0) / 1e6;
  }

  static String data(int rows, int features) {
    Random r = new Random(1);
    StringBuilder b = new StringBuilder("label");
    for (int f = 0; f < features; f++) {
      b.append(",x").append(f);
    }
    b.append('\n');
    for (int i = 0; i < rows; i++) {
      b.append(r.nextInt(10));
      for (int f = 0; f < features; f++) {
        b.append(',').append(String.format(Locale.ROOT, "%.6f", r.nextGaussian()));
      }
      b.append('\n');
    }
    return b.toString();
  }

  /** The candidate: CsvReader's rules over Commons CSV's records. */
  static int commonsCsv(Reader reader, String source, CsvReader.RowSink sink) throws IOException {
    int columns = -1;
    long columnsLine = 0;
    float[] features = null;
    boolean first = true;
    try (CSVParser parser = FORMAT.parse(reader)) {
      Iterator<CSVRecord> records = parser.iterator();
      long linesRead = 0;
      while (records.hasNext()) {
        CSVRecord rec = records.next();
        long lineNo = linesRead + 1;
        linesRead = parser.getCurrentLineNumber();
        if (rec.size() == 1 && rec.get(0).isEmpty() || rec.get(0).startsWith("#")) {
          continue;
        }
        if (first) {
          first = false;
          boolean header = true;
          for (String f : rec) {
            header &= Double.isNaN(Numbers.parseFinite(f.strip()));
          }
          if (header) {
            continue;
          }
        }
        if (columns < 0) {
          if (rec.size() < 2) {
            throw LineErrors.line(source, lineNo, "a CSV row needs a label and at least one feature");
          }
          columns = rec.size();
          columnsLine = lineNo;
          features = new float[columns - 1];
        } else if (rec.size() != columns) {
          throw LineErrors.line(source, lineNo, rec.size() + " fields, but line " + columnsLine + " has " + columns);
        }
        double label = Numbers.parseFinite(rec.get(0).strip());
        if (Double.isNaN(label)) {
          throw LineErrors.field(source, lineNo, 1, rec.get(0), "label is not a number");
        }
        for (int f = 1; f < columns; f++) {
          double v = Numbers.parseFinite(rec.get(f).strip());
          if (Double.isNaN(v)) {
            throw LineErrors.field(source, lineNo, f + 1, rec.get(f), "feature value is not a number");
          }
          features[f - 1] = (float) v;
        }
        sink.row(label, features);
      }
    }
    return Math.max(columns - 1, 0);
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }
}
