package org.edl.job;

/**
 * The data set a job trains on.
 *
 * @param source {@code synthetic:samples=..,features=..,classes=..,seed=..} or a path (HDFS or any
 *               Hadoop file system) to a LIBSVM or CSV file
 * @param format {@code libsvm}, {@code csv}, or {@code auto} (from the file extension)
 */
public record Data(String source, String format) {}
