package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.edl.job.ModelOutput;
import org.edl.job.Recovery;
import org.edl.testing.HdfsCluster;
import org.edl.testing.ZooKeeperServer;
import org.edl.worker.checkpoint.Checkpoint;
import org.edl.worker.checkpoint.CheckpointDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The newest periodic checkpoint is damaged on a real HDFS (MiniDFSCluster) after it was
 * written, then a worker of three dies in consistent mode. The leader reads the checkpoint back
 * before ordering it, finds it damaged and orders the one before it instead: the survivors redo
 * the steps since that older checkpoint, finish with identical parameters and count every
 * sample once; every other file the job wrote is still there, byte for byte.
 */
class DamagedCheckpointRecoveryTest {
  @RegisterExtension
  static final HdfsCluster HDFS = new HdfsCluster(1);

  @RegisterExtension
  static final ZooKeeperServer ZK = new ZooKeeperServer();

  @Test
  void consistentRecoverySkipsADamagedNewestCheckpointForTheOneBefore() throws Exception {
    String appId = "application_9_51";
    String output = HDFS.uri("/user/edl/" + appId);
    FileSystem fs = HDFS.fileSystem();
    Configuration conf = HDFS.configuration();
    // Keeps every checkpoint: pruning would delete the older ones the test checks are intact.
    ElasticJob job = new ElasticJob(ZK.connectString(), appId,
        FailureRecoveryTest.spec(output, Recovery.Mode.CONSISTENT).toBuilder().checkpoints(6, 0, 10).build(),
        Duration.ofMillis(5));
    job.rpcTimeout = FailureRecoveryTest.RPC_TIMEOUT;
    job.zkSessionTimeout = FailureRecoveryTest.ZK_SESSION_TIMEOUT;
    try (job) {
      List<String> ids = FailureRecoveryTest.startAndHold(job);
      long newest = FailureRecoveryTest.newestCheckpointStep(job);
      String damaged = job.checkpoints.stream().filter(p -> FailureRecoveryTest.stepOf(p) == newest)
          .findFirst().orElseThrow();
      long older = job.checkpoints.stream().mapToLong(FailureRecoveryTest::stepOf).filter(s -> s < newest)
          .max().orElseThrow();
      org.apache.hadoop.fs.Path model = new org.apache.hadoop.fs.Path(damaged, Checkpoint.MODEL_FILE);
      Map<String, byte[]> before = contents(fs, new org.apache.hadoop.fs.Path(output));
      before.remove(fs.makeQualified(model).toString());
      overwriteBytes(fs, model);
      assertThrows(IOException.class, () -> Checkpoint.read(conf, damaged).verify(), "the damage shows");

      String victim = FailureRecoveryTest.follower(job, ids);
      job.crash(victim);
      job.release();

      List<Worker.Outcome> survivors = FailureRecoveryTest.survivors(job, ids, victim);
      for (Worker.Outcome o : survivors) {
        RecoveryRecord r = FailureRecoveryTest.onlyRecovery(job, o.workerId());
        assertEquals("consistent", r.mode());
        assertEquals(List.of(victim), r.failed());
        assertEquals(older, r.nextStep(), "back to the checkpoint before the damaged one");
        assertTrue(r.checkpoint().endsWith(Checkpoint.nameFor(older)), r.checkpoint());
        FailureRecoveryTest.assertBegunTwice(job, o.workerId(), older, FailureRecoveryTest.FAIL_AT);
      }
      FailureRecoveryTest.assertFinishedIdenticalAndCountedOnce(survivors);

      Map<String, byte[]> after = contents(fs, new org.apache.hadoop.fs.Path(output));
      for (Map.Entry<String, byte[]> e : before.entrySet()) {
        assertTrue(after.containsKey(e.getKey()), "still there: " + e.getKey());
        assertArrayEquals(e.getValue(), after.get(e.getKey()), "unchanged: " + e.getKey());
      }
      for (org.apache.hadoop.fs.Path p : CheckpointDirectory.list(conf, PeriodicCheckpoints.directoryUnder(output))) {
        if (!p.getName().equals(Checkpoint.nameFor(newest))) {
          Checkpoint.read(conf, p.toString()).verify();
        }
      }
      ModelOutput.Written written = survivors.stream().filter(Worker.Outcome::leader).findFirst().orElseThrow()
          .output().orElseThrow();
      assertTrue(fs.getFileStatus(written.model()).getLen() > 0, written.model().toString());
    }
  }

  /** Every file under {@code dir}, by its qualified path. */
  private static Map<String, byte[]> contents(FileSystem fs, org.apache.hadoop.fs.Path dir) throws IOException {
    Map<String, byte[]> files = new TreeMap<>();
    RemoteIterator<LocatedFileStatus> it = fs.listFiles(dir, true);
    while (it.hasNext()) {
      LocatedFileStatus s = it.next();
      try (FSDataInputStream in = fs.open(s.getPath())) {
        files.put(fs.makeQualified(s.getPath()).toString(), in.readAllBytes());
      }
    }
    return files;
  }

  /** Rewrites the file with the same length and every byte of its second half inverted. */
  private static void overwriteBytes(FileSystem fs, org.apache.hadoop.fs.Path file) throws IOException {
    byte[] bytes;
    try (FSDataInputStream in = fs.open(file)) {
      bytes = in.readAllBytes();
    }
    for (int i = bytes.length / 2; i < bytes.length; i++) {
      bytes[i] = (byte) ~bytes[i];
    }
    try (FSDataOutputStream out = fs.create(file, true)) {
      out.write(bytes);
    }
  }
}
