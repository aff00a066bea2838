package org.edl.am;

import java.io.IOException;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.edl.worker.checkpoint.Checkpoint;
import org.edl.worker.checkpoint.CheckpointDirectory;
import org.edl.worker.checkpoint.CheckpointCatalog;

/**
 * {@link RestartSource} over the job's checkpoint directory on HDFS. Only committed checkpoints
 * count (a write in progress or abandoned is never renamed into place), and only their
 * meta-data is read: the new workers verify the model's checksum themselves and fall back to an
 * older checkpoint in the same directory if it does not verify.
 */
final class CheckpointRestartSource implements RestartSource {
  private final Configuration conf;
  private final String checkpointRoot;

  CheckpointRestartSource(Configuration conf, String checkpointRoot) {
    this.conf = conf;
    this.checkpointRoot = checkpointRoot;
  }

  @Override
  public Optional<String> checkpointFor(String stopDirectory) throws IOException {
    Path stop = new Path(stopDirectory);
    if (stop.getFileSystem(conf).exists(stop) && !CheckpointDirectory.list(conf, stopDirectory).isEmpty()) {
      return Optional.of(stopDirectory);
    }
    Path root = new Path(checkpointRoot);
    if (!root.getFileSystem(conf).exists(root)) {
      return Optional.empty();
    }
    // Newest first, periodic checkpoints and earlier stops alike.
    return CheckpointCatalog.list(conf, root, false).stream()
        .filter(e -> e.problem().isEmpty())
        .findFirst()
        .map(e -> e.path().toString());
  }
}
