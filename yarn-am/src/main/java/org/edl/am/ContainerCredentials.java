package org.edl.am;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.yarn.security.AMRMTokenIdentifier;
import org.edl.job.JobSecret;

/** The job secret and tokens as YARN carries them in a container's credentials. */
public final class ContainerCredentials {
  private ContainerCredentials() {}

  public static void putSecret(Credentials credentials, JobSecret secret) {
    credentials.addSecretKey(new Text(JobSecret.CREDENTIALS_KEY), secret.bytes());
  }

  /** The job secret from {@code credentials}; fails if the container was launched without one. */
  public static JobSecret secretFrom(Credentials credentials) {
    byte[] key = credentials.getSecretKey(new Text(JobSecret.CREDENTIALS_KEY));
    if (key == null) {
      throw new IllegalStateException("no job secret in the container's credentials under "
          + JobSecret.CREDENTIALS_KEY);
    }
    return JobSecret.of(key);
  }

  /** A copy of {@code credentials} without the AMRM token, which only the AM may hold. */
  public static Credentials withoutAmRmToken(Credentials credentials) {
    Credentials copy = new Credentials();
    for (Token<?> token : credentials.getAllTokens()) {
      if (!AMRMTokenIdentifier.KIND_NAME.equals(token.getKind())) {
        copy.addToken(token.getService(), token);
      }
    }
    for (Text alias : credentials.getAllSecretKeys()) {
      copy.addSecretKey(alias, credentials.getSecretKey(alias));
    }
    return copy;
  }

  /** The form {@code ContainerLaunchContext.setTokens} takes. */
  public static ByteBuffer serialize(Credentials credentials) throws IOException {
    DataOutputBuffer out = new DataOutputBuffer();
    credentials.writeTokenStorageToStream(out);
    return ByteBuffer.wrap(out.getData(), 0, out.getLength());
  }
}
