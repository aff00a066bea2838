package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.DataInputByteBuffer;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.security.AMRMTokenIdentifier;
import org.edl.job.JobSecret;
import org.edl.job.WorkerEnv;
import org.junit.jupiter.api.Test;

class WorkerLaunchContextsTest {
  @Test
  void workersGetTheMainClassTheJvmFlagsTheirEnvironmentAndTheSecretButNotTheAmRmToken() throws Exception {
    JobSecret secret = JobSecret.generate();
    Credentials am = new Credentials();
    ContainerCredentials.putSecret(am, secret);
    am.addToken(new Text("rm"), new Token<>(new byte[1], new byte[1], AMRMTokenIdentifier.KIND_NAME, new Text("rm")));
    am.addToken(new Text("hdfs"), new Token<>(new byte[1], new byte[1], new Text("HDFS_DELEGATION_TOKEN"), new Text("hdfs")));

    WorkerLaunchContexts contexts = new WorkerLaunchContexts(Map.of(), "{{PWD}}/*", "application_1_0001",
        "zk:2181", "am-host:4000",
        ContainerCredentials.serialize(ContainerCredentials.withoutAmRmToken(am)), 1024,
        Map.of(WorkerEnv.ZK_SESSION_TIMEOUT_MS, "10000"), WorkerClassSharing.jvmOptions(new Configuration(false)));
    ContainerLaunchContext ctx = contexts.create(new WorkerContainer("c1", "h1"), new WorkerLaunch(List.of(2, 3)));

    String command = ctx.getCommands().get(0);
    assertTrue(command.startsWith("{{JAVA_HOME}}/bin/java "), command);
    assertTrue(command.contains(String.join(" ", JvmOptions.addOpens())), command);
    assertTrue(command.contains("--add-opens=java.base/java.lang=ALL-UNNAMED"), command);
    assertTrue(command.contains("-Xmx768m"), command);
    assertTrue(command.contains(" " + WorkerEnv.MAIN_CLASS + " "), command);
    assertTrue(command.contains(" -XX:SharedArchiveFile={{JAVA_HOME}}/lib/server/classes.jsa:{{PWD}}/../"
        + WorkerClassSharing.ARCHIVE + " -XX:DumpLoadedClassList={{PWD}}/tmp/edl-loaded-classes.lst "), command);
    assertTrue(command.contains("1><LOG_DIR>/stdout 2><LOG_DIR>/stderr"), command);

    Map<String, String> env = ctx.getEnvironment();
    assertEquals("application_1_0001", env.get(WorkerEnv.APP_ID));
    assertEquals("zk:2181", env.get(WorkerEnv.ZK_CONNECT));
    assertEquals("am-host:4000", env.get(WorkerEnv.AM_ADDRESS));
    assertEquals("2,3", env.get(WorkerEnv.GPU_INDICES));
    assertEquals("1024", env.get(WorkerEnv.CONTAINER_MEMORY_MB));
    assertEquals("{{PWD}}/*", env.get("CLASSPATH"));
    assertEquals("10000", env.get(WorkerEnv.ZK_SESSION_TIMEOUT_MS), "the submitter's setting reaches every worker");

    Credentials worker = read(ctx.getTokens());
    assertEquals(secret, ContainerCredentials.secretFrom(worker));
    assertNull(worker.getToken(new Text("rm")), "no AMRM token for workers");
    assertFalse(worker.getToken(new Text("hdfs")) == null, "HDFS tokens travel on");
  }

  private static Credentials read(ByteBuffer tokens) throws Exception {
    DataInputByteBuffer in = new DataInputByteBuffer();
    in.reset(tokens.duplicate());
    Credentials c = new Credentials();
    c.readTokenStorageStream(new DataInputStream(in));
    return c;
  }
}

