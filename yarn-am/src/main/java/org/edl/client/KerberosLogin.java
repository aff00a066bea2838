package org.edl.client;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.security.UserGroupInformation;
import org.edl.job.InvalidInputException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who the client is on a secure cluster: logged in from a keytab when given one
 * ({@code --principal}/{@code --keytab}, as {@code spark-submit} takes them), else from the
 * ticket cache {@code kinit} fills. Checked before anything connects, so a client without
 * credentials says so in one line instead of Hadoop's "GSS initiate failed" from deep in an RPC.
 */
public final class KerberosLogin {
  private static final Logger LOG = LoggerFactory.getLogger(KerberosLogin.class);

  private static final String AUTHENTICATION = CommonConfigurationKeysPublic.HADOOP_SECURITY_AUTHENTICATION;

  private KerberosLogin() {}

  /**
   * Makes {@code conf}'s security settings this JVM's and logs in.
   *
   * @param principal null or blank: none given
   * @param keytab    null: none given
   * @throws InvalidInputException naming the flag for a missing pair, an unreadable keytab, a
   *     principal on a cluster without Kerberos, a failed login, or no ticket on a secure cluster
   */
  public static void apply(Configuration conf, String principal, Path keytab) {
    boolean hasPrincipal = principal != null && !principal.isBlank();
    if (hasPrincipal != (keytab != null)) {
      throw hasPrincipal
          ? new InvalidInputException("--keytab", "(none)", "--principal " + principal + " needs a keytab to log in from")
          : new InvalidInputException("--principal", "(none)", "--keytab " + keytab + " needs the principal to log in as");
    }
    try {
      UserGroupInformation.setConfiguration(conf);
    } catch (IllegalArgumentException noRealm) {
      // Hadoop's words: "Can't get Kerberos realm"; the cause names no file.
      throw new InvalidInputException(AUTHENTICATION, conf.get(AUTHENTICATION), "this JVM finds no Kerberos"
          + " configuration (no default realm): set KRB5_CONFIG to the cluster's krb5.conf (bin/edl passes it on"
          + " as java.security.krb5.conf), or install /etc/krb5.conf");
    }
    boolean secure = UserGroupInformation.isSecurityEnabled();
    if (hasPrincipal) {
      if (!secure) {
        throw new InvalidInputException("--principal", principal, "the cluster configuration has "
            + AUTHENTICATION + "=simple: Kerberos is off, so there is nobody to log in as");
      }
      if (!Files.isRegularFile(keytab) || !Files.isReadable(keytab)) {
        throw new InvalidInputException("--keytab", keytab, "not a readable file");
      }
      try {
        UserGroupInformation.loginUserFromKeytab(principal, keytab.toAbsolutePath().toString());
      } catch (IOException e) {
        throw new InvalidInputException("--principal", principal, "Kerberos login from keytab " + keytab
            + " failed: " + rootMessage(e));
      }
      LOG.debug("Logged in as {} from {}", principal, keytab);
      return;
    }
    if (secure && !hasKerberosCredentials()) {
      throw new InvalidInputException(AUTHENTICATION, "kerberos", "the cluster uses Kerberos and this user has no"
          + " ticket: run kinit, or pass --principal NAME --keytab FILE");
    }
  }

  private static boolean hasKerberosCredentials() {
    try {
      UserGroupInformation user = UserGroupInformation.getCurrentUser();
      return user.hasKerberosCredentials() || !user.getCredentials().getAllTokens().isEmpty();
    } catch (IOException e) {
      return false;
    }
  }

  private static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c == t ? String.valueOf(t.getMessage()) : t.getMessage() + " (" + c.getMessage() + ")";
  }
}
