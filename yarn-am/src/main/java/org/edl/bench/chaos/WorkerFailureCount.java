package org.edl.bench.chaos;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The worker failures the AM has counted, as its status and final diagnostics say them
 * ({@code worker failures: 2 of 3 allowed (container_..._000003 on host (exit status 4), ...)}).
 * Today an AM attempt counts from 0 (its count is not in the fleet journal a new attempt
 * adopts), so the job's total is taken as the distinct containers named over every attempt, or,
 * where none can be read, the sum of each attempt's highest count.
 */
public final class WorkerFailureCount {
  private static final Pattern COUNT = Pattern.compile("worker failures: (\\d+) of \\d+ allowed \\((.*)\\)");
  private static final Pattern CONTAINER = Pattern.compile("(container_[0-9a-z_]+) on ");

  private final Map<String, Integer> byAttempt = new HashMap<>();
  private final Set<String> containers = new HashSet<>();

  /** The count in an AM's text; 0 when it names none (or its wording changed). */
  static int in(String diagnostics) {
    if (diagnostics == null) {
      return 0;
    }
    Matcher m = COUNT.matcher(diagnostics);
    return m.find() ? Integer.parseInt(m.group(1)) : 0;
  }

  /** Takes what the AM of {@code attemptId} says now into account. */
  public void saw(String attemptId, String diagnostics) {
    byAttempt.merge(String.valueOf(attemptId), in(diagnostics), Math::max);
    Matcher m = diagnostics == null ? null : COUNT.matcher(diagnostics);
    if (m != null && m.find()) {
      Matcher c = CONTAINER.matcher(m.group(2));
      while (c.find()) {
        containers.add(c.group(1));
      }
    }
  }

  /** Over every attempt seen. */
  public int total() {
    return containers.isEmpty() ? byAttempt.values().stream().mapToInt(Integer::intValue).sum() : containers.size();
  }
}
