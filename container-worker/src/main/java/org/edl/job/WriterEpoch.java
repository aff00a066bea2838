package org.edl.job;

import java.util.regex.Pattern;

/**
 * The leadership that writes one of a job's files or checkpoints: its application and leader
 * epoch. Epochs are claimed one after another in the application's ZooKeeper node, so within one
 * application an older epoch can never commit again once a newer one exists; between
 * applications (two jobs given the same {@code --output}) epochs say nothing.
 *
 * @param appId the YARN application id, or {@link #UNATTRIBUTED} for a write outside any job
 * @param epoch the leader epoch (0: none, a write outside any leadership)
 */
public record WriterEpoch(String appId, long epoch) {
  /** The application of a write outside a job (a single process, a test). */
  public static final String UNATTRIBUTED = "local";
  /** Only what a YARN application id holds, so that the id can sit inside a file name. */
  static final Pattern APP_ID = Pattern.compile("[A-Za-z0-9_]+");

  public WriterEpoch {
    if (!APP_ID.matcher(appId).matches()) {
      throw new IllegalArgumentException("application id '" + appId + "' is not [A-Za-z0-9_]+");
    }
    if (epoch < 0) {
      throw new IllegalArgumentException("negative leader epoch " + epoch);
    }
  }

  /**
   * Whether {@code other} was fenced by this leadership: the same application at an older epoch.
   * Such a writer can never put anything in place again, so what it left is garbage.
   */
  public boolean fences(WriterEpoch other) {
    return appId.equals(other.appId) && other.epoch < epoch;
  }

  @Override
  public String toString() {
    return appId + " epoch " + epoch;
  }
}
