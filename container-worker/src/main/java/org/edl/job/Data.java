package org.edl.job;

/**
 * The data set a job trains on.
 *
 * @param source {@code synthetic:samples=..,features=..,classes=..,seed=..} or a path (HDFS or any
 *               Hadoop file system) to a LIBSVM or CSV file
 * @param format {@code libsvm}, {@code csv}, or {@code auto} (from the file extension)
 * @param cache  directory for the parsed binary copy of a text file that workers joining later
 *               read instead of parsing; {@link #CACHE_WITH_JOB}: the job's staging directory, which
 *               the submitting client fills in (and the copy goes with the job); {@link #CACHE_OFF}
 *               or empty: none (every worker parses)
 */
public record Data(String source, String format, String cache) {
  /** The copy in the job's staging directory, deleted with it (the default). */
  public static final String CACHE_WITH_JOB = "job";
  public static final String CACHE_OFF = "off";

  public Data {
    cache = cache == null ? "" : cache.trim();
  }

  public Data(String source, String format) {
    this(source, format, "");
  }

  /** The directory a worker reads and writes the copy in; empty when there is none. */
  public String cacheDir() {
    return CACHE_WITH_JOB.equals(cache) || CACHE_OFF.equals(cache) ? "" : cache;
  }
}
