package org.edl.worker.coord.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.edl.job.JobSecret;
import org.edl.job.rpc.AuthenticationException;
import org.edl.job.rpc.RpcServer;
import org.edl.thrift.Coordinator;
import org.edl.thrift.Registration;
import org.edl.thrift.WorkerInfo;
import org.edl.worker.coord.CoordTesting;
import org.edl.worker.coord.Phase;
import org.edl.worker.coord.Ticker;
import org.junit.jupiter.api.Test;

/** The leader's coordinator over real TCP: the job's secret gets in, any other is refused. */
class CoordinatorSecretTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @Test
  void aWorkerWithTheWrongSecretIsRefusedAndTheRefusalIsReported() throws Exception {
    JobSecret secret = JobSecret.generate();
    CoordinatorService service = new CoordinatorService(CoordTesting.spec(2, 1, 2, 10), Ticker.SYSTEM);
    assertTrue(service.leadership().lead(), "elected with an unpersisted store: leads a fresh job");
    assertEquals(Phase.FORMING, service.leadership().phase());
    assertEquals(1, service.leadership().leaderEpoch());
    BlockingQueue<String> refusals = new LinkedBlockingQueue<>();
    try (RpcServer server = RpcServer.start("coordinator", new Coordinator.Processor<>(service),
        "127.0.0.1", 0, secret, TIMEOUT, (peer, cause) -> refusals.add(peer + " " + cause.getMessage()))) {
      String address = "127.0.0.1:" + server.port();

      AuthenticationException refused = assertThrows(AuthenticationException.class,
          () -> CoordinatorClient.connect(address, JobSecret.generate(), TIMEOUT));
      assertNotNull(refused.getMessage());
      String seen = refusals.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      assertNotNull(seen, "the server did not report the refusal");
      assertTrue(seen.contains("secret"), seen);
      assertEquals(1, server.refusedCount());

      // Nothing of the intruder reached the coordinator; the real worker registers normally.
      try (CoordinatorClient client = CoordinatorClient.connect(address, secret, TIMEOUT)) {
        Registration r = client.registerWorker(new WorkerInfo("container_01", "127.0.0.1", 7001));
        assertEquals(0, r.getTopology().getVersion());
        assertEquals(1, r.getLeaderEpoch());
      }
      assertEquals(1, server.refusedCount());
    } finally {
      service.leadership().retire();
    }
  }

  @Test
  void aCoordinatorThatDoesNotLeadSaysSo() throws Exception {
    JobSecret secret = JobSecret.generate();
    CoordinatorService service = new CoordinatorService(CoordTesting.spec(2, 1, 2, 10), Ticker.SYSTEM);
    try (RpcServer server = RpcServer.start("coordinator", new Coordinator.Processor<>(service),
        "127.0.0.1", 0, secret, TIMEOUT, org.edl.job.rpc.RefusalListener.NONE);
        CoordinatorClient client = CoordinatorClient.connect("127.0.0.1:" + server.port(), secret, TIMEOUT)) {
      Exception e = assertThrows(Exception.class,
          () -> client.registerWorker(new WorkerInfo("container_01", "127.0.0.1", 7001)));
      assertTrue(CoordinatorClient.isNotLeader(e), e.toString());
      Exception leave = assertThrows(Exception.class, () -> client.leave("container_01"));
      assertTrue(CoordinatorClient.isNotLeader(leave), leave.toString());
      assertEquals(Phase.CANDIDATE, service.leadership().phase(), "asking it changes nothing");
    }
  }
}
