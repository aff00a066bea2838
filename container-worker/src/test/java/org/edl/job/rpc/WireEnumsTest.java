package org.edl.job.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Arrays;
import org.edl.job.BatchRule;
import org.edl.job.ScaleMode;
import org.junit.jupiter.api.Test;

/** The job API's enums and the protocol's hold the same values, so each converts both ways. */
class WireEnumsTest {
  @Test
  void everyBatchRuleCrossesTheWireAndComesBackAsItself() {
    assertEquals(Arrays.stream(org.edl.thrift.BatchRule.values()).map(Enum::name).toList(),
        Arrays.stream(BatchRule.values()).map(Enum::name).toList());
    for (BatchRule r : BatchRule.values()) {
      assertEquals(r, WireEnums.batchRule(WireEnums.toWire(r)));
    }
    assertNull(WireEnums.batchRule(null), "a record without a rule has none");
  }

  @Test
  void everyScaleModeTheProtocolCarriesIsOneOfTheFleets() {
    assertEquals(Arrays.stream(org.edl.thrift.ScaleMode.values()).map(Enum::name).toList(),
        Arrays.stream(ScaleMode.values()).map(Enum::name).toList());
    for (org.edl.thrift.ScaleMode m : org.edl.thrift.ScaleMode.values()) {
      assertEquals(m.name(), WireEnums.scaleMode(m).name());
    }
    assertNull(WireEnums.scaleMode(null), "a client that sent no mode");
  }
}
