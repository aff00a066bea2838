package org.edl.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kerberos flags refused before anything connects: one line naming the flag or setting, exit
 * 2. (Logging in for real is SecureClusterEndToEndTest's, on a cluster with a KDC.) This JVM has
 * no Kerberos configuration, as a client machine that was never set up for the cluster.
 */
class KerberosLoginUsageTest {
  @TempDir
  Path dir;

  @Test
  void aPrincipalWithoutAKeytab() throws IOException {
    JobControlUsageTest.usageError(JobControlUsageTest.run("--conf", conf("simple").toString(), "--principal", "alice@EXAMPLE.COM",
        "status", "application_1700000000000_0001"), "--keytab=(none)", "--principal alice@EXAMPLE.COM needs a keytab");
  }

  @Test
  void aKeytabWithoutAPrincipal() throws IOException {
    JobControlUsageTest.usageError(JobControlUsageTest.run("--conf", conf("simple").toString(), "--keytab", "/tmp/a.keytab",
        "status", "application_1700000000000_0001"), "--principal=(none)", "needs the principal");
  }

  @Test
  void aPrincipalOnAClusterWithoutKerberos() throws IOException {
    Path keytab = Files.writeString(dir.resolve("alice.keytab"), "not read");
    JobControlUsageTest.usageError(JobControlUsageTest.run("--conf", conf("simple").toString(), "--principal", "alice@EXAMPLE.COM",
        "--keytab", keytab.toString(), "status", "application_1700000000000_0001"),
        "--principal=alice@EXAMPLE.COM", "hadoop.security.authentication=simple");
  }

  @Test
  void aSecureClusterSeenFromAMachineWithoutKrb5Conf() throws IOException {
    JobControlUsageTest.usageError(JobControlUsageTest.run("--conf", conf("kerberos").toString(), "status",
        "application_1700000000000_0001"), "hadoop.security.authentication=kerberos", "KRB5_CONFIG");
  }

  private Path conf(String authentication) throws IOException {
    Path confDir = Files.createDirectories(dir.resolve(authentication));
    Configuration core = new Configuration(false);
    core.set("hadoop.security.authentication", authentication);
    try (OutputStream out = Files.newOutputStream(confDir.resolve("core-site.xml"))) {
      core.writeXml(out);
    }
    return confDir;
  }
}
