package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.edl.thrift.ProfilePoint;
import org.edl.thrift.ProfileResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HdfsProfileStoreTest {
  @Test
  void theTableHasOneLinePerPointAndTheChartIsWritten(@TempDir Path dir) throws Exception {
    ProfileResult r = new ProfileResult(List.of(new ProfilePoint(4, 1234.56, 10), new ProfilePoint(2, 700.0, 10)));
    ProfileStore.Stored stored = new HdfsProfileStore(new Configuration(), dir.toUri().toString(), "t").store(r);
    assertTrue(stored.tablePath().endsWith(HdfsProfileStore.TABLE), stored.tablePath());
    assertEquals("workers,samples_per_second,batches\n4,1234.6,10\n2,700.0,10\n",
        Files.readString(dir.resolve(HdfsProfileStore.TABLE)));
    assertTrue(Files.size(dir.resolve(HdfsProfileStore.CHART)) > 0);
  }
}
