package org.edl.cli;

import static org.edl.cli.SubmitArgs.parse;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.edl.job.InvalidInputException;
import org.junit.jupiter.api.Test;

/** How {@code edl submit --ring-transport} becomes the job specification (no cluster needed). */
class SubmitRingTransportFlagTest {
  @Test
  void ringsShareMemoryOnAHostUnlessTheJobSaysTcp() {
    assertEquals("auto", parse("--workers", "2").ringTransport());
    assertEquals("tcp", parse("--workers", "2", "--ring-transport", "tcp").ringTransport());
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> parse("--workers", "2", "--ring-transport", "rdma"));
    assertEquals("ring-transport", e.field());
    assertTrue(e.getMessage().contains("rdma"), e.getMessage());
  }
}
