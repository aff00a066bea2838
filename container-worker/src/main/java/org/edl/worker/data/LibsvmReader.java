package org.edl.worker.data;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.util.Arrays;
import org.edl.job.InvalidInputException;

/**
 * Reads LIBSVM text ({@code label idx:val idx:val ...}, 1-based indices, any order) into a dense
 * {@link Dataset}. The feature count is the largest index seen; labels may be any numbers and are
 * mapped by {@link LabelMapper}. Blank lines and text after {@code #} are ignored.
 *
 * <p>Errors name the file, the line and the field (field 1 is the label), so a user can go
 * straight to the bad spot in a file of millions of lines.
 */
public final class LibsvmReader {

  /** Receives each parsed row; {@code indices} are 0-based and valid for {@code n} entries. */
  interface RowSink {
    void row(double label, int[] indices, float[] values, int n);
  }

  private LibsvmReader() {}

  /** Reads the whole file into memory. {@code source} names the file in error messages. */
  public static Dataset read(Reader in, String source) throws IOException {
    SparseRows rows = new SparseRows();
    LabelMapper labels = new LabelMapper(source);
    scan(in, source, (label, indices, values, n) -> {
      labels.add(label);
      rows.add(label, indices, values, n);
    });
    if (rows.count == 0) {
      throw LineErrors.empty(source);
    }
    return rows.toDataset(labels, source);
  }

  /** Streams through the file keeping only its shape. */
  public static DatasetSummary summarize(Reader in, String source) throws IOException {
    LabelMapper labels = new LabelMapper(source);
    long[] rowsAndMax = new long[2];
    scan(in, source, (label, indices, values, n) -> {
      labels.add(label);
      rowsAndMax[0]++;
      for (int i = 0; i < n; i++) {
        rowsAndMax[1] = Math.max(rowsAndMax[1], indices[i] + 1L);
      }
    });
    if (rowsAndMax[0] == 0) {
      throw LineErrors.empty(source);
    }
    return new DatasetSummary(rowsAndMax[0], featureCount(rowsAndMax[1], source), labels.classCount());
  }

  static void scan(Reader reader, String source, RowSink sink) throws IOException {
    BufferedReader in = reader instanceof BufferedReader b ? b : new BufferedReader(reader, 1 << 16);
    int[] indices = new int[16];
    float[] values = new float[16];
    long lineNo = 0;
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      lineNo++;
      int hash = line.indexOf('#');
      String body = (hash >= 0 ? line.substring(0, hash) : line).strip();
      if (body.isEmpty()) {
        continue;
      }
      String[] fields = body.split("\\s+");
      double label = Numbers.parseFinite(fields[0]);
      if (Double.isNaN(label)) {
        throw LineErrors.field(source, lineNo, 1, fields[0], "label is not a number");
      }
      int n = fields.length - 1;
      if (n > indices.length) {
        indices = Arrays.copyOf(indices, Math.max(n, indices.length * 2));
        values = Arrays.copyOf(values, indices.length);
      }
      for (int f = 1; f < fields.length; f++) {
        parsePair(fields[f], source, lineNo, f + 1, indices, values, f - 1);
      }
      checkDuplicates(indices, n, fields, source, lineNo);
      sink.row(label, indices, values, n);
    }
  }

  private static void parsePair(String field, String source, long line, int fieldNo,
      int[] indices, float[] values, int at) {
    int colon = field.indexOf(':');
    if (colon < 0) {
      throw LineErrors.field(source, line, fieldNo, field, "expected index:value");
    }
    int index;
    try {
      index = Integer.parseInt(field, 0, colon, 10);
    } catch (NumberFormatException e) {
      throw LineErrors.field(source, line, fieldNo, field, "feature index is not a whole number");
    }
    if (index < 1) {
      throw LineErrors.field(source, line, fieldNo, field, "feature index must be 1 or more");
    }
    double value = Numbers.parseFinite(field.substring(colon + 1));
    if (Double.isNaN(value)) {
      throw LineErrors.field(source, line, fieldNo, field, "feature value is not a number");
    }
    float f = (float) value;
    if (Float.isInfinite(f)) {
      throw LineErrors.field(source, line, fieldNo, field, "feature value is out of float range");
    }
    indices[at] = index - 1;
    values[at] = f;
  }

  /** A repeated index would silently overwrite a value; LIBSVM tools treat it as an error too. */
  private static void checkDuplicates(int[] indices, int n, String[] fields, String source, long line) {
    boolean ascending = true;
    for (int i = 1; i < n && ascending; i++) {
      ascending = indices[i] > indices[i - 1];
    }
    if (ascending) {
      return;
    }
    int[] sorted = Arrays.copyOf(indices, n);
    Arrays.sort(sorted);
    for (int i = 1; i < n; i++) {
      if (sorted[i] == sorted[i - 1]) {
        int second = -1;
        for (int j = 0, seen = 0; j < n; j++) {
          if (indices[j] == sorted[i] && ++seen == 2) {
            second = j;
            break;
          }
        }
        throw LineErrors.field(source, line, second + 2, fields[second + 1],
            "feature index " + (sorted[i] + 1) + " appears more than once");
      }
    }
  }

  static int featureCount(long maxIndexPlusOne, String source) {
    if (maxIndexPlusOne == 0) {
      throw new InvalidInputException("data", source, "no line has any feature");
    }
    return (int) maxIndexPlusOne;
  }

  /** Growable compressed-row storage, so the dense width is known before the dense copy. */
  private static final class SparseRows {
    int count;
    double[] labels = new double[1024];
    long[] rowStart = new long[1025];
    int[] indices = new int[1 << 14];
    float[] values = new float[1 << 14];
    int nonZeros;
    int maxIndex = -1;

    void add(double label, int[] idx, float[] val, int n) {
      if (count == labels.length) {
        labels = Arrays.copyOf(labels, count * 2);
        rowStart = Arrays.copyOf(rowStart, count * 2 + 1);
      }
      if ((long) nonZeros + n > indices.length) {
        long grown = Math.max((long) nonZeros + n, indices.length * 2L);
        if (grown > Integer.MAX_VALUE - 8) {
          throw new IllegalStateException("more than 2^31 non-zero features");
        }
        indices = Arrays.copyOf(indices, (int) grown);
        values = Arrays.copyOf(values, (int) grown);
      }
      System.arraycopy(idx, 0, indices, nonZeros, n);
      System.arraycopy(val, 0, values, nonZeros, n);
      for (int i = 0; i < n; i++) {
        maxIndex = Math.max(maxIndex, idx[i]);
      }
      labels[count] = label;
      nonZeros += n;
      count++;
      rowStart[count] = nonZeros;
    }

    Dataset toDataset(LabelMapper mapper, String source) {
      int width = featureCount(maxIndex + 1L, source);
      long cells = (long) count * width;
      if (cells > Integer.MAX_VALUE - 8) {
        throw new InvalidInputException("data", source, count + " rows x " + width
            + " features is too large to hold densely in one array");
      }
      float[] dense = new float[(int) cells];
      for (int r = 0; r < count; r++) {
        long base = (long) r * width;
        for (int k = (int) rowStart[r]; k < rowStart[r + 1]; k++) {
          dense[(int) (base + indices[k])] = values[k];
        }
      }
      return new Dataset(dense, mapper.map(labels, count), width, mapper.classCount());
    }
  }
}
