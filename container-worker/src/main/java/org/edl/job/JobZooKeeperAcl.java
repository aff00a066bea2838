package org.edl.job;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/**
 * Who may change a job's ZooKeeper nodes: only the job's own processes. Every node under
 * {@code /edl/<appId>} is created writable by one ZooKeeper {@code digest} identity derived from
 * the job's secret (which the AM, every worker and the submitting user hold) and readable by
 * anyone, so that another user can neither rewrite a job's leader record or fleet journal nor
 * delete its presence nodes, while {@code edl status} and an admin can still look. Nodes outside
 * a job ({@code /edl} itself) stay open, so any user's job can add its own subtree.
 */
public final class JobZooKeeperAcl implements ACLProvider {
  public static final String SCHEME = "digest";

  private final String root;
  private final String identity;
  private final List<ACL> acl;

  private JobZooKeeperAcl(String appId, String identity) {
    this.root = JobPaths.root(appId);
    this.identity = identity;
    try {
      // Not List.of: ZooKeeper asks the list whether it contains null, which List.of answers with an NPE.
      this.acl = Collections.unmodifiableList(new ArrayList<>(List.of(
          new ACL(ZooDefs.Perms.ALL, new Id(SCHEME, DigestAuthenticationProvider.generateDigest(identity))),
          new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE))));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-1", e);
    }
  }

  /** The identity of {@code appId}'s processes: {@code edl-<appId>:<HMAC of the secret>}. */
  public static JobZooKeeperAcl of(String appId, JobSecret secret) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.bytes(), "HmacSHA256"));
      byte[] password = mac.doFinal(("zookeeper:" + appId).getBytes(StandardCharsets.UTF_8));
      return new JobZooKeeperAcl(appId, "edl-" + appId + ":" + Base64.getUrlEncoder().withoutPadding().encodeToString(password));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JVM has HmacSHA256", e);
    }
  }

  /** A Curator client that authenticates as the job and creates the job's nodes with its ACL. */
  public CuratorFrameworkFactory.Builder applyTo(CuratorFrameworkFactory.Builder builder) {
    return builder.authorization(SCHEME, authBytes()).aclProvider(this);
  }

  /** Adds the job's identity to a session that is already open (one session, several jobs' nodes). */
  public void authenticate(CuratorFramework zk) throws Exception {
    zk.getZookeeperClient().getZooKeeper().addAuthInfo(SCHEME, authBytes());
  }

  byte[] authBytes() {
    return identity.getBytes(StandardCharsets.UTF_8);
  }

  /** The ACL of every node of the job. */
  public List<ACL> acl() {
    return acl;
  }

  @Override
  public List<ACL> getDefaultAcl() {
    return ZooDefs.Ids.OPEN_ACL_UNSAFE;
  }

  @Override
  public List<ACL> getAclForPath(String path) {
    return path != null && (path.equals(root) || path.startsWith(root + "/")) ? acl : ZooDefs.Ids.OPEN_ACL_UNSAFE;
  }
}
