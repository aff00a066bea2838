package org.edl.worker.emulated;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.edl.job.InvalidInputException;

/**
 * Measured step times of one model ({@code profiles/<model>/placements.csv}:
 * {@code placement,local_bsz,step_time,sync_time}). The emulated backend's compute time for a
 * batch is {@code step_time - sync_time} at the ring's placement and per-GPU batch; the sync part
 * is not emulated, it is the real all-reduce of a gradient of the model's real size.
 */
public final class StepProfile {
  private final String model;
  /** placement -> local batch -> compute seconds. */
  private final Map<String, TreeMap<Integer, Double>> compute;

  private StepProfile(String model, Map<String, TreeMap<Integer, Double>> compute) {
    this.model = model;
    this.compute = compute;
  }

  public static StepProfile read(String model, Reader csv) throws IOException {
    Map<String, TreeMap<Integer, Double>> compute = new TreeMap<>();
    BufferedReader in = new BufferedReader(csv);
    String header = in.readLine();
    if (header == null || !header.trim().equals("placement,local_bsz,step_time,sync_time")) {
      throw new InvalidInputException("profile", model, "expected the header placement,local_bsz,step_time,sync_time, found " + header);
    }
    String line;
    int number = 1;
    while ((line = in.readLine()) != null) {
      number++;
      if (line.isBlank()) {
        continue;
      }
      String[] f = line.split(",");
      try {
        if (f.length != 4) {
          throw new NumberFormatException(f.length + " fields");
        }
        double step = Double.parseDouble(f[2]);
        double sync = Double.parseDouble(f[3]);
        compute.computeIfAbsent(f[0].trim(), k -> new TreeMap<>())
            .put(Integer.parseInt(f[1].trim()), Math.max(0, step - sync));
      } catch (NumberFormatException e) {
        throw new InvalidInputException("profile", model + " line " + number, "not placement,local_bsz,step_time,sync_time: " + line);
      }
    }
    if (compute.isEmpty()) {
      throw new InvalidInputException("profile", model, "has no measurements");
    }
    return new StepProfile(model, compute);
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
    TreeMap<Integer, Double> byBatch = compute.get(placement);
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
