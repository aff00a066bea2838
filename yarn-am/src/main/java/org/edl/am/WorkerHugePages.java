package org.edl.am;

import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * Backs a worker's heap with transparent huge pages where the host allows it (Linux with
 * {@code /sys/kernel/mm/transparent_hugepage/enabled} at {@code madvise} or {@code always}).
 *
 * <p>A worker holds the model and a gradient buffer as arrays of the model's size (100 MB each
 * for a ResNet-50), and a new JVM touches that memory for the first time when it zeroes them.
 * In 4 KB pages that is 25,000 page faults: 270 ms per array on an idle two-core host here, and
 * while a thread zeroes a large array no other thread of the JVM gets past a garbage
 * collection, so a newcomer stood still for 250-520 ms, every member of the ring waiting for it.
 * In 2 MB pages the same array took 8-20 ms. Where the kernel has no huge pages to give, the JVM
 * falls back to small pages (and prints a warning where the kernel does not support them).
 */
public final class WorkerHugePages {
  /** Admin switch in the cluster's {@code yarn-site.xml} (the AM reads its NodeManager's); on by default. */
  public static final String ENABLED_KEY = "edl.worker.transparent-huge-pages";

  private WorkerHugePages() {}

  public static List<String> jvmOptions(Configuration conf) {
    return conf.getBoolean(ENABLED_KEY, true) ? List.of("-XX:+UseTransparentHugePages") : List.of();
  }
}
