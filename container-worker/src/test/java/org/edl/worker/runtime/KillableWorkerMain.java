package org.edl.worker.runtime;

import java.time.Duration;
import java.util.HexFormat;
import org.apache.hadoop.conf.Configuration;
import org.edl.worker.job.JobSpec;
import org.edl.worker.job.Recovery;
import org.edl.worker.security.JobSecret;

/**
 * A worker of {@link FailureRecoveryTest}'s job in a JVM of its own, for a real SIGKILL: it
 * trains like the others until it is about to begin step {@code holdAt}, prints
 * {@link #MARKER} and waits there to be killed.
 *
 * <p>Arguments: appId workerId zkConnect output secretHex mode holdAt.
 */
public final class KillableWorkerMain {
  static final String MARKER = "EDL-TEST about to begin step ";

  private KillableWorkerMain() {}

  public static void main(String[] args) throws Exception {
    String appId = args[0];
    long holdAt = Long.parseLong(args[6]);
    JobSpec spec = FailureRecoveryTest.spec(args[3], Recovery.modeOf(args[5]));
    WorkerConfig config = WorkerConfig.of(appId, args[1], "127.0.0.1", args[2], null, spec,
        JobSecret.of(HexFormat.of().parseHex(args[4])), new Configuration())
        .withStartupTimeout(ElasticJob.WAIT)
        .withSwitchAllowance(Duration.ofMillis(5))
        .withRpcTimeout(FailureRecoveryTest.RPC_TIMEOUT)
        .withZkSessionTimeout(FailureRecoveryTest.ZK_SESSION_TIMEOUT);
    WorkerListener listener = new WorkerListener() {
      @Override
      public void beforeBatch(String workerId, long step) throws InterruptedException {
        if (step == holdAt) {
          System.out.println(MARKER + step);
          System.out.flush();
          Thread.sleep(ElasticJob.WAIT.toMillis());
        }
      }
    };
    try (Worker w = new Worker(config, ExecutionContext.FROM_SPEC, listener)) {
      w.run();
    }
    System.exit(0);
  }
}
