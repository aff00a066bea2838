package org.edl.worker.script;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A script's silence judged on a clock the test moves. */
class ScriptLivenessTest {
  private static final long S = 1_000_000_000L;
  private final AtomicLong now = new AtomicLong(100 * S);
  private final AtomicInteger silenced = new AtomicInteger();
  private final ScriptLiveness liveness = new ScriptLiveness(now::get, Duration.ofSeconds(5), silenced::incrementAndGet);

  @Test
  void aScriptIsNotJudgedBeforeItsFirstSign() {
    now.addAndGet(60 * S);
    assertFalse(liveness.check());
    assertEquals(0, silenced.get());
  }

  @Test
  void signsWithinTheTimeoutKeepItAliveAndASilencePastItEndsItOnce() {
    liveness.sign();
    for (int i = 0; i < 10; i++) {
      now.addAndGet(4 * S);
      assertFalse(liveness.check(), "4 s after a sign");
      liveness.sign();
    }
    now.addAndGet(5 * S);
    assertFalse(liveness.check(), "exactly the timeout is not past it");
    now.addAndGet(S / 10);
    assertTrue(liveness.check());
    assertTrue(liveness.check());
    assertEquals(1, silenced.get(), "ended once");
  }
}
