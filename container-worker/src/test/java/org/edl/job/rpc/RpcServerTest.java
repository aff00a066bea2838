package org.edl.job.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.edl.job.JobSecret;
import org.edl.thrift.JobControl;
import org.edl.thrift.JobProgress;
import org.edl.thrift.JobState;
import org.edl.thrift.JobStatus;
import org.edl.thrift.ProfileResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RpcServerTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private final JobSecret secret = JobSecret.generate();
  private final LinkedBlockingQueue<String> refusedPeers = new LinkedBlockingQueue<>();
  private RpcServer server;

  @BeforeEach
  void start() throws Exception {
    server = RpcServer.start("job-control", new JobControl.Processor<>(new CountingJobControl()),
        "127.0.0.1", 0, secret, TIMEOUT, (peer, cause) -> refusedPeers.add(peer));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void aClientWithTheJobSecretMakesCalls() throws Exception {
    try (RpcConnection conn = RpcClient.open("127.0.0.1", server.port(), secret, TIMEOUT)) {
      JobControl.Client client = new JobControl.Client(conn.protocol());
      assertEquals(JobState.RUNNING, client.status().getState());
      client.reportProgress(new JobProgress(7, 100, 0.5, 10.0, 3));
      assertEquals(3, client.status().getTargetWorkers());
    }
    assertEquals(0, server.refusedCount());
  }

  @Test
  void aClientWithAnotherSecretIsRefusedAndTheRefusalRecorded() throws Exception {
    AuthenticationException e = assertThrows(AuthenticationException.class,
        () -> RpcClient.open("127.0.0.1", server.port(), JobSecret.generate(), TIMEOUT));
    assertTrue(e.getMessage().contains("127.0.0.1:" + server.port()), e.getMessage());

    String peer = refusedPeers.poll(10, TimeUnit.SECONDS);
    assertTrue(peer != null && peer.contains("127.0.0.1"), "refused peer reported: " + peer);
    assertEquals(1, server.refusedCount());

    // The server keeps serving the right clients after a refusal.
    try (RpcConnection conn = RpcClient.open("127.0.0.1", server.port(), secret, TIMEOUT)) {
      assertEquals(JobState.RUNNING, new JobControl.Client(conn.protocol()).status().getState());
    }
  }

  @Test
  void closeEndsIdleConnections() throws Exception {
    RpcConnection idle = RpcClient.open("127.0.0.1", server.port(), secret, TIMEOUT);
    JobControl.Client client = new JobControl.Client(idle.protocol());
    client.status();
    server.close();
    assertThrows(org.apache.thrift.TException.class, client::status);
    idle.close();
  }

  /**
   * Closing the server under a client that is connected and idle (an {@code edl submit} following
   * the job as its AM ends) ends the connection without Thrift logging a warning with a stack trace.
   */
  @Test
  void closingUnderAnIdleClientLogsNoWarningFromThrift() throws Exception {
    List<org.apache.log4j.spi.LoggingEvent> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
    org.apache.log4j.AppenderSkeleton capture = new org.apache.log4j.AppenderSkeleton() {
      @Override
      protected void append(org.apache.log4j.spi.LoggingEvent event) {
        if (event.getLevel().isGreaterOrEqual(org.apache.log4j.Level.WARN)) {
          warnings.add(event);
        }
      }

      @Override
      public void close() {}

      @Override
      public boolean requiresLayout() {
        return false;
      }
    };
    org.apache.log4j.Logger thrift = org.apache.log4j.Logger.getLogger("org.apache.thrift");
    thrift.addAppender(capture);
    try (RpcConnection idle = RpcClient.open("127.0.0.1", server.port(), secret, TIMEOUT)) {
      new JobControl.Client(idle.protocol()).status();
      server.close();
    } finally {
      thrift.removeAppender(capture);
    }
    assertEquals(List.of(), warnings.stream().map(e -> e.getLoggerName() + ": " + e.getRenderedMessage()).toList());
  }

  /** A server at its connection cap closes the next connection at once; a freed slot serves again. */
  @Test
  void connectionsBeyondTheCapAreClosedAndAFreedSlotIsServedAgain() throws Exception {
    try (RpcServer capped = RpcServer.start("capped", new JobControl.Processor<>(new CountingJobControl()),
        "127.0.0.1", 0, secret, TIMEOUT, 2, (peer, cause) -> refusedPeers.add(peer))) {
      RpcConnection first = RpcClient.open("127.0.0.1", capped.port(), secret, TIMEOUT);
      try (RpcConnection second = RpcClient.open("127.0.0.1", capped.port(), secret, TIMEOUT)) {
        assertThrows(Exception.class, () -> {
          try (RpcConnection third = RpcClient.open("127.0.0.1", capped.port(), secret, TIMEOUT)) {
            new JobControl.Client(third.protocol()).status();
          }
        });
        assertEquals(JobState.RUNNING, new JobControl.Client(second.protocol()).status().getState(),
            "the connections within the cap go on");
      }
      first.close();
      org.edl.testing.Await.until("a freed slot to serve a new connection", () -> {
        try (RpcConnection again = RpcClient.open("127.0.0.1", capped.port(), secret, TIMEOUT)) {
          return new JobControl.Client(again.protocol()).status().getState() == JobState.RUNNING;
        } catch (Exception e) {
          return false;
        }
      });
    }
  }

  /** The smallest real JobControl: remembers the last progress report. */
  private static final class CountingJobControl implements JobControl.Iface {
    private volatile int workers;

    @Override
    public JobStatus status() {
      return new JobStatus("application_1_0001", JobState.RUNNING, workers, List.of());
    }

    @Override
    public void reportProgress(JobProgress progress) {
      workers = progress.getWorkers();
    }

    @Override
    public JobStatus scaleOut(int count, org.edl.thrift.ScaleMode mode) {
      return status();
    }

    @Override
    public JobStatus scaleIn(int count, List<String> containerIds, org.edl.thrift.ScaleMode mode) {
      return status();
    }

    @Override
    public JobStatus migrate(String fromHost, String toHost) {
      return status();
    }

    @Override
    public ProfileResult profile(int minWorkers, int maxWorkers, int batches) {
      return new ProfileResult(List.of());
    }
  }
}
