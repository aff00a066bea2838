package org.edl.bench.soak;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The threads of this JVM counted by pool: a thread's name with its numbers replaced by
 * {@code #} ({@code ApplicationMasterLauncher #12} and {@code #13} are one pool). A thread is
 * counted as EDL's when its name starts with {@code edl} or any frame of its stack is in
 * {@code org.edl}: the embedded cluster's JVM also runs the benchmark's own client threads.
 */
public final class ThreadCensus {
  /** The pool name of EDL's threads, whatever their names. */
  public static final String OURS = "(edl)";
  private static final Pattern NUMBERS = Pattern.compile("\\d+");

  private ThreadCensus() {}

  /** Pool name -> live threads, now; the calling thread left out. */
  public static Map<String, Integer> take() {
    Map<String, Integer> pools = new TreeMap<>();
    Thread self = Thread.currentThread();
    Thread.getAllStackTraces().forEach((t, stack) -> {
      if (t != self && t.isAlive()) {
        pools.merge(poolOf(t.getName(), stack), 1, Integer::sum);
      }
    });
    return pools;
  }

  static String poolOf(String name, StackTraceElement[] stack) {
    if (name.startsWith("edl")) {
      return OURS;
    }
    for (StackTraceElement e : stack) {
      if (e.getClassName().startsWith("org.edl.")) {
        return OURS;
      }
    }
    return NUMBERS.matcher(name).replaceAll("#");
  }
}
