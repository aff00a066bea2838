package org.edl.worker.script;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.edl.thrift.EdlError;
import org.edl.thrift.ScriptHello;
import org.junit.jupiter.api.Test;

/** The worker's side of a script's hello, without a script: what it accepts and what it refuses. */
class ScriptChannelServiceTest {
  private final ScriptChannelService channel = new ScriptChannelService(new ScriptHello("w1", 7, 16, "gloo"));

  @Test
  void aHelloAnnouncesTheDatasetAndTheStoreTheScriptServes() throws Exception {
    assertEquals("w1", channel.hello(42, 64, 40001).getWorkerId());
    ScriptChannelService.Announced a = channel.awaitHello(1000);
    assertEquals(64, a.datasetSize());
    assertEquals(40001, a.storePort());
  }

  @Test
  void aStorePortOutOfRangeIsRefusedNamingItAndFailsTheStart() {
    EdlError e = assertThrows(EdlError.class, () -> channel.hello(42, 64, 0));
    assertEquals("storePort", e.getField());
    assertEquals("0", e.getValue());
    ScriptFailedException failed = assertThrows(ScriptFailedException.class, () -> channel.awaitHello(1000));
    assertTrue(failed.getMessage().contains("reported port 0"), failed.getMessage());
  }

  @Test
  void anEmptyDatasetIsRefusedNamingIt() {
    EdlError e = assertThrows(EdlError.class, () -> channel.hello(42, 0, 40001));
    assertEquals("dataset_size", e.getField());
    assertThrows(ScriptFailedException.class, () -> channel.awaitHello(1000));
  }
}
