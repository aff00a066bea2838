package org.edl.job;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Objects;
import org.edl.job.rpc.SecretHandshake;

/**
 * The job's shared secret. The client creates it, the AM and workers get it in their YARN
 * credentials (secret key {@link #CREDENTIALS_KEY}), and every control and data connection
 * proves knowledge of it without sending it (see {@code SecretHandshake}).
 */
public final class JobSecret {
  /** Alias of the secret key inside the container's {@code Credentials}. */
  public static final String CREDENTIALS_KEY = "edl.job.secret";
  public static final int LENGTH = 32;

  private final byte[] key;

  private JobSecret(byte[] key) {
    this.key = key.clone();
  }

  public static JobSecret generate() {
    byte[] k = new byte[LENGTH];
    new SecureRandom().nextBytes(k);
    return new JobSecret(k);
  }

  public static JobSecret of(byte[] key) {
    Objects.requireNonNull(key, "key");
    if (key.length < 16) {
      throw new IllegalArgumentException("job secret too short: " + key.length + " bytes");
    }
    return new JobSecret(key);
  }

  /** A copy of the key bytes. */
  public byte[] bytes() {
    return key.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JobSecret other && java.security.MessageDigest.isEqual(key, other.key);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(key);
  }

  /** Never prints the key. */
  @Override
  public String toString() {
    return "JobSecret(" + key.length + " bytes)";
  }
}
