package org.edl.worker.emulated;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.edl.job.InvalidInputException;

/**
 * Measured step times of one model ({@code profiles/<model>/placements.csv}:
 * {@code placement,local_bsz,step_time,sync_time}). The emulated backend's compute time for a
 * batch is {@code step_time - sync_time} at the ring's placement and per-GPU batch; the sync part
 * is not emulated, it is the real all-reduce of a gradient of the model's real size.
 */
public final class StepProfile {
  private static final List<String> COLUMNS = List.of("placement", "local_bsz", "step_time", "sync_time");
  /** Empty lines come back as records so that each record's line can be counted. */
  private static final CSVFormat FORMAT = CSVFormat.DEFAULT.builder().setIgnoreEmptyLines(false).build();

  private final String model;
  /** placement -> local batch -> compute seconds. */
  private final Map<String, TreeMap<Integer, Double>> compute;
  /** placement -> local batch -> whole step seconds (compute and gradient synchronisation). */
  private final Map<String, TreeMap<Integer, Double>> step;

  private StepProfile(String model, Map<String, TreeMap<Integer, Double>> compute,
      Map<String, TreeMap<Integer, Double>> step) {
    this.model = model;
    this.compute = compute;
    this.step = step;
  }

  /** As {@link #read(String, String, Reader)}, the model's name standing for the file in errors. */
  public static StepProfile read(String model, Reader csv) throws IOException {
    return read(model, model, csv);
  }

  /**
   * Reads {@code csv}, named {@code source} in errors. The rules are the simulator's for the same
   * files (its {@code CsvRows}), which this module cannot share: RFC 4180, columns found by their
   * trimmed names in the first line, blank lines skipped, values trimmed; an error names the
   * file, the line, the field and the value.
   */
  public static StepProfile read(String model, String source, Reader csv) throws IOException {
    Map<String, TreeMap<Integer, Double>> compute = new TreeMap<>();
    Map<String, TreeMap<Integer, Double>> steps = new TreeMap<>();
    try (CSVParser parser = FORMAT.parse(csv)) {
      Iterator<CSVRecord> records = parser.iterator();
      List<String> header = records.hasNext() ? records.next().toList() : List.of();
      Map<String, Integer> column = new HashMap<>();
      for (int i = 0; i < header.size(); i++) {
        column.put(header.get(i).trim(), i);
      }
      if (!column.keySet().containsAll(COLUMNS)) {
        throw new InvalidInputException("profile", source, "expected the header " + String.join(",", COLUMNS)
            + ", found " + (header.isEmpty() ? null : String.join(",", header)));
      }
      long linesRead = parser.getCurrentLineNumber();
      while (true) {
        long line = linesRead + 1;
        CSVRecord r;
        try {
          if (!records.hasNext()) {
            break;
          }
          r = records.next();
        } catch (IllegalStateException | UncheckedIOException e) {
          // A quote left open or text after a closing quote.
          throw new InvalidInputException("profile", source + " line " + line,
              String.valueOf(e.getCause() == null ? e.getMessage() : e.getCause().getMessage()));
        }
        linesRead = parser.getCurrentLineNumber();
        if (r.size() == 1 && r.get(0).isBlank()) {
          continue;
        }
        if (r.size() < header.size()) {
          throw new InvalidInputException("profile", source + " line " + line, "field '"
              + header.get(r.size()).trim() + "' = '': line has " + r.size() + " fields, the header " + header.size());
        }
        String placement = r.get(column.get("placement")).trim();
        int localBatch = (int) number(source, line, "local_bsz", r.get(column.get("local_bsz")), true);
        double step = number(source, line, "step_time", r.get(column.get("step_time")), false);
        double sync = number(source, line, "sync_time", r.get(column.get("sync_time")), false);
        compute.computeIfAbsent(placement, k -> new TreeMap<>()).put(localBatch, Math.max(0, step - sync));
        steps.computeIfAbsent(placement, k -> new TreeMap<>()).put(localBatch, step);
      }
    }
    if (compute.isEmpty()) {
      throw new InvalidInputException("profile", model, "has no measurements");
    }
    return new StepProfile(model, compute, steps);
  }

  private static double number(String source, long line, String field, String value, boolean whole) {
    try {
      return whole ? Integer.parseInt(value.trim()) : Double.parseDouble(value.trim());
    } catch (NumberFormatException e) {
      throw new InvalidInputException("profile", source + " line " + line, "field '" + field + "' = '" + value
          + "': not a " + (whole ? "whole number" : "number"));
    }
  }

  public String model() {
    return model;
  }

  /**
   * Compute seconds of one step at {@code placement} with {@code localBatch} samples per GPU:
   * linear between the two measured batch sizes around it, proportional below the smallest
   * and above the largest.
   */
  public double computeSeconds(String placement, int localBatch) {
    return interpolated(compute, placement, localBatch);
  }

  /**
   * Seconds of one whole step (compute and gradient synchronisation, as measured) at {@code
   * placement} with {@code localBatch} samples per GPU, interpolated as {@link #computeSeconds}.
   */
  public double stepSeconds(String placement, int localBatch) {
    return interpolated(step, placement, localBatch);
  }

  /** Whether {@code placement} was measured. */
  public boolean measured(String placement) {
    return compute.containsKey(placement);
  }

  private double interpolated(Map<String, TreeMap<Integer, Double>> table, String placement, int localBatch) {
    TreeMap<Integer, Double> byBatch = table.get(placement);
    if (byBatch == null) {
      throw new InvalidInputException("placement", placement, "not measured in the " + model
          + " profile (measured: " + String.join(" ", new ArrayList<>(compute.keySet()).subList(0,
              Math.min(12, compute.size()))) + " ...)");
    }
    if (localBatch <= 0) {
      return 0;
    }
    Map.Entry<Integer, Double> lo = byBatch.floorEntry(localBatch);
    Map.Entry<Integer, Double> hi = byBatch.ceilingEntry(localBatch);
    if (lo == null) {
      return hi.getValue() * localBatch / hi.getKey();
    }
    if (hi == null) {
      return lo.getValue() * localBatch / lo.getKey();
    }
    if (lo.getKey().equals(hi.getKey())) {
      return lo.getValue();
    }
    double t = (localBatch - lo.getKey()) / (double) (hi.getKey() - lo.getKey());
    return lo.getValue() + t * (hi.getValue() - lo.getValue());
  }

  /** Measured placements, for messages and tests. */
  public List<String> placements() {
    return List.copyOf(compute.keySet());
  }
}
