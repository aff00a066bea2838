package org.edl.scheduler.sim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVPrinter;
import org.apache.commons.csv.CSVRecord;

/**
 * The simulator's CSV files, read and written with Commons CSV. Read: RFC 4180 (quotes allowed);
 * the first line names the columns (trimmed; columns are found by name); blank lines are skipped;
 * fields are given as written, and every row with the line it starts on, which errors name.
 * Written: RFC 4180 with {@code \n} line ends, quoting only what needs it.
 *
 * <p>The worker's emulated backend reads the same profiles by the same rules (its
 * {@code StepProfile}); the two cannot share this class, as the simulator may not use the worker
 * nor the worker the scheduler.
 */
final class CsvRows implements AutoCloseable {
  /** Empty lines come back as records so that each record's line can be counted. */
  private static final CSVFormat READ = CSVFormat.DEFAULT.builder().setIgnoreEmptyLines(false).build();
  static final CSVFormat WRITE = CSVFormat.DEFAULT.builder().setRecordSeparator('\n').build();

  private final String file;
  private final CSVParser parser;
  private final Iterator<CSVRecord> records;
  private final List<String> header;
  private final Map<String, Integer> columns = new HashMap<>();
  private long linesRead;

  private CsvRows(Path path) throws IOException {
    this.file = path.toString();
    this.parser = READ.parse(TraceFiles.open(path));
    this.records = parser.iterator();
    CSVRecord first = nextRecord();
    if (first == null) {
      parser.close();
      throw new TraceFormatException(file, 1, "header", "", "empty file");
    }
    header = first.toList();
    for (int i = 0; i < header.size(); i++) {
      columns.put(header.get(i).trim(), i);
    }
  }

  /** Opens {@code path} and reads its header. */
  static CsvRows open(Path path) throws IOException {
    return new CsvRows(path);
  }

  /** A printer of {@link #WRITE} to {@code out}. */
  static CSVPrinter printer(Appendable out) throws IOException {
    return WRITE.print(out);
  }

  String file() {
    return file;
  }

  /** The column names as written. */
  List<String> header() {
    return header;
  }

  /** The header line as the file has it (when no name needed quotes). */
  String headerLine() {
    return String.join(",", header);
  }

  /** The index of the column named {@code name}, or -1. */
  int column(String name) {
    return columns.getOrDefault(name, -1);
  }

  /** The next row that is not blank, or null at the end of the file. */
  Row next() throws IOException {
    while (true) {
      long line = linesRead + 1;
      CSVRecord r = nextRecord();
      if (r == null) {
        return null;
      }
      if (r.size() > 1 || !r.get(0).isBlank()) {
        return new Row(line, r.toList());
      }
    }
  }

  private CSVRecord nextRecord() {
    try {
      if (!records.hasNext()) {
        return null;
      }
      CSVRecord r = records.next();
      linesRead = parser.getCurrentLineNumber();
      return r;
    } catch (UncheckedIOException | IllegalStateException e) {
      // A quote left open or text after a closing quote: Commons CSV names the line.
      throw new TraceFormatException(file, linesRead + 1, "csv", "",
          String.valueOf(e.getCause() == null ? e.getMessage() : e.getCause().getMessage()));
    }
  }

  @Override
  public void close() throws IOException {
    parser.close();
  }

  /** One row: the line it starts on and its fields as written. */
  final class Row {
    private final long line;
    private final List<String> fields;

    private Row(long line, List<String> fields) {
      this.line = line;
      this.fields = fields;
    }

    long line() {
      return line;
    }

    int size() {
      return fields.size();
    }

    /** Field {@code i} as written. */
    String get(int i) {
      return fields.get(i);
    }

    /** The field of column {@code name}, trimmed; null if there is no such column or the row is short. */
    String get(String name) {
      int i = column(name);
      return i >= 0 && i < fields.size() ? fields.get(i).trim() : null;
    }
  }
}
