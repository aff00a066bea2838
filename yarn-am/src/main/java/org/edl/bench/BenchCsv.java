package org.edl.bench;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVPrinter;
import org.apache.commons.csv.CSVRecord;

/**
 * The benchmarks' CSV files, written and read back with Commons CSV: RFC 4180 with {@code \n}
 * line ends, a field quoted only when it must be, which is the format of the files committed under
 * {@code docs/benchmarks}. Read back, blank lines are skipped and each record keeps the line it
 * starts on, so that an error can name the file, the line, the field and the value.
 */
public final class BenchCsv {
  public static final CSVFormat FORMAT = CSVFormat.DEFAULT.builder().setRecordSeparator('\n').build();
  /** Empty lines come back as records so that each record's line can be counted. */
  private static final CSVFormat READ = FORMAT.builder().setIgnoreEmptyLines(false).build();

  private BenchCsv() {}

  /** One record and the line it starts on. */
  public record Row(long line, List<String> fields) {
    public int size() {
      return fields.size();
    }

    public String get(int i) {
      return fields.get(i);
    }
  }

  /** Writes {@code header} (comma-separated names) and {@code rows} to {@code csv}, creating its directory. */
  public static void write(Path csv, String header, List<? extends List<?>> rows) throws IOException {
    Path parent = csv.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try (Writer out = Files.newBufferedWriter(csv); CSVPrinter printer = FORMAT.print(out)) {
      printer.printRecord((Object[]) header.split(","));
      printer.printRecords(rows);
    }
  }

  /** Every record that is not a blank line, the header included; {@code source} names the file in errors. */
  public static List<Row> read(Reader in, String source) throws IOException {
    List<Row> rows = new ArrayList<>();
    try (CSVParser parser = READ.parse(in)) {
      Iterator<CSVRecord> records = parser.iterator();
      long linesRead = 0;
      while (true) {
        CSVRecord r;
        try {
          if (!records.hasNext()) {
            return rows;
          }
          r = records.next();
        } catch (IllegalStateException | UncheckedIOException e) {
          // A quote left open, or text after a closing quote.
          throw new IOException(source + ":" + (linesRead + 1) + ": "
              + (e.getCause() == null ? e.getMessage() : e.getCause().getMessage()), e);
        }
        long line = linesRead + 1;
        linesRead = parser.getCurrentLineNumber();
        if (r.size() > 1 || !r.get(0).isBlank()) {
          rows.add(new Row(line, r.toList()));
        }
      }
    }
  }

  /** Reads {@code csv} as {@link #read(Reader, String)} does. */
  public static List<Row> read(Path csv) throws IOException {
    try (Reader in = Files.newBufferedReader(csv)) {
      return read(in, csv.toString());
    }
  }

  /** A field as a number; an error names the file, the line, the field and the value. */
  public static double number(String source, Row row, int i, String field) throws IOException {
    try {
      return Double.parseDouble(row.get(i).trim());
    } catch (NumberFormatException e) {
      throw bad(source, row, field, row.get(i), "not a number");
    }
  }

  /** A field as a whole number; an error names the file, the line, the field and the value. */
  public static long whole(String source, Row row, int i, String field) throws IOException {
    try {
      return Long.parseLong(row.get(i).trim());
    } catch (NumberFormatException e) {
      throw bad(source, row, field, row.get(i), "not a whole number");
    }
  }

  public static IOException bad(String source, Row row, String field, String value, String problem) {
    return new IOException(source + ":" + row.line() + ": field '" + field + "' = '" + value + "': " + problem);
  }

  /** {@code v} with {@code decimals} digits after the point, as the files have always had it. */
  public static String fixed(int decimals, double v) {
    return String.format(Locale.ROOT, "%." + decimals + "f", v);
  }
}
