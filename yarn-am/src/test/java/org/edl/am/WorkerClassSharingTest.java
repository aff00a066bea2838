package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class WorkerClassSharingTest {
  @Test
  void workersMapTheJdksArchiveThenTheJobsOnTheNodeAndListWhatTheyLoad() {
    assertEquals(List.of("-XX:SharedArchiveFile={{JAVA_HOME}}/lib/server/classes.jsa:{{PWD}}/../edl-worker.jsa",
        "-XX:DumpLoadedClassList={{PWD}}/tmp/edl-loaded-classes.lst"),
        WorkerClassSharing.jvmOptions(new Configuration(false)));
  }

  @Test
  void theAdminCanTurnItOff() {
    Configuration conf = new Configuration(false);
    conf.setBoolean(WorkerClassSharing.ENABLED_KEY, false);
    assertEquals(List.of(), WorkerClassSharing.jvmOptions(conf));
  }
}
