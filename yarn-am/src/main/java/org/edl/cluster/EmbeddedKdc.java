package org.edl.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.hadoop.minikdc.MiniKdc;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded cluster's Kerberos KDC (Hadoop's MiniKdc) and the keytabs it issues: one for the
 * services ({@code hadoop/localhost} for the NameNode, DataNode, ResourceManager and
 * NodeManagers, {@code HTTP/localhost} for their web servers) and one for the user who submits,
 * named after this machine's user so that containers (run as that user) and their HDFS files
 * agree, as they do on a real cluster with the LinuxContainerExecutor.
 *
 * <p>Starting it points this JVM at its {@code krb5.conf} ({@code java.security.krb5.conf}); a
 * client JVM needs the same, which {@code bin/edl} passes on from {@code KRB5_CONFIG}.
 */
public final class EmbeddedKdc implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKdc.class);
  static final String HOST = "localhost";
  /** The principal every Hadoop service of the cluster logs in as. */
  static final String SERVICE = "hadoop/" + HOST;
  /** The web servers' SPNEGO principal (Hadoop wants one per host, named HTTP). */
  static final String HTTP = "HTTP/" + HOST;

  private final MiniKdc kdc;
  private final Path serviceKeytab;
  private final Path userKeytab;
  private final String user;

  private EmbeddedKdc(MiniKdc kdc, Path serviceKeytab, Path userKeytab, String user) {
    this.kdc = kdc;
    this.serviceKeytab = serviceKeytab;
    this.userKeytab = userKeytab;
    this.user = user;
  }

  /** Starts a KDC with its data in {@code dir} and writes the two keytabs there. */
  static EmbeddedKdc start(Path dir, String user) throws Exception {
    Files.createDirectories(dir);
    Properties conf = MiniKdc.createConf();
    conf.setProperty(MiniKdc.KDC_BIND_ADDRESS, HOST);
    MiniKdc kdc = new MiniKdc(conf, dir.toFile());
    kdc.start();
    try {
      Path services = dir.resolve("hadoop.keytab");
      kdc.createPrincipal(services.toFile(), SERVICE, HTTP);
      Path users = dir.resolve(user + ".keytab");
      kdc.createPrincipal(users.toFile(), user);
      EmbeddedKdc started = new EmbeddedKdc(kdc, services, users, user);
      LOG.info("Kerberos KDC for realm {} at {}:{}; krb5.conf {}, user keytab {}", kdc.getRealm(), kdc.getHost(),
          kdc.getPort(), kdc.getKrb5conf(), users);
      return started;
    } catch (Exception | Error e) {
      kdc.stop();
      throw e;
    }
  }

  public String realm() {
    return kdc.getRealm();
  }

  /** The Kerberos configuration clients of this cluster need ({@code KRB5_CONFIG}). */
  public Path krb5Conf() {
    return kdc.getKrb5conf().toPath();
  }

  /** {@code <user>@<REALM>}: whom {@link #userKeytab()} logs in. */
  public String userPrincipal() {
    return user + "@" + realm();
  }

  public Path userKeytab() {
    return userKeytab;
  }

  /** The services' principal, {@code hadoop/localhost@<REALM>}; its short name is HDFS's superuser. */
  public String servicePrincipal() {
    return SERVICE + "@" + realm();
  }

  String httpPrincipal() {
    return HTTP + "@" + realm();
  }

  public Path serviceKeytab() {
    return serviceKeytab;
  }

  @Override
  public void close() throws IOException {
    kdc.stop();
  }
}
