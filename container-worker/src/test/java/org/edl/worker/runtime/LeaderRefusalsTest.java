package org.edl.worker.runtime;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;

class LeaderRefusalsTest {
  private static final long MS = 1_000_000L;

  @Test
  void threeRefusalsSpanningASecondGiveTheLeaderUpOnce() {
    LeaderRefusals r = new LeaderRefusals();
    assertFalse(r.refused("h:1", 0));
    assertFalse(r.refused("h:1", 20 * MS));
    assertFalse(r.refused("h:1", 40 * MS), "three, but within 40 ms: a server being replaced");
    assertTrue(r.refused("h:1", 1_000 * MS));
    assertFalse(r.refused("h:1", 1_200 * MS), "given up once");
  }

  @Test
  void anAnswerOrAnotherAddressStartsTheCountAgain() {
    LeaderRefusals r = new LeaderRefusals();
    r.refused("h:1", 0);
    r.refused("h:1", 600 * MS);
    r.answered("h:1");
    assertFalse(r.refused("h:1", 1_100 * MS));
    assertFalse(r.refused("h:1", 1_200 * MS));
    assertFalse(r.refused("h:2", 2_500 * MS), "a new leader's count starts at its first refusal");
    assertFalse(r.refused("h:2", 2_600 * MS));
    assertTrue(r.refused("h:2", 3_500 * MS));
  }

  @Test
  void onlyARefusedConnectionIsARefusalNotATimeout() {
    assertTrue(LeaderRefusals.isRefusal(new IOException("open", new ConnectException("Connection refused"))));
    assertFalse(LeaderRefusals.isRefusal(new IOException("read", new SocketTimeoutException("Read timed out"))));
    assertFalse(LeaderRefusals.isRefusal(new IOException("no cause")));
  }
}
