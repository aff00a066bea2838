package org.edl.am;

import java.io.IOException;
import org.edl.thrift.ProfileResult;

/** Keeps a profile's result with the job, as a table and a chart; says where. */
public interface ProfileStore {
  /** Where the table and the chart went; either may be null when not stored. */
  record Stored(String tablePath, String chartPath) {}

  Stored store(ProfileResult result) throws IOException;

  /** Keeps nothing (a job without an output directory, tests). */
  ProfileStore NONE = r -> new Stored(null, null);
}
