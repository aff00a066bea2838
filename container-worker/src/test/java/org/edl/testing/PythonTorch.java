package org.edl.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.TimeUnit;

/**
 * Debian's Python with PyTorch and Thrift, which script jobs' tests run for real. {@code bin/test}
 * installs both (python3-torch, python3-thrift); where they are missing the tests step aside and
 * say why. Debian's own interpreter: a pyenv one may come first on the PATH without them.
 */
public final class PythonTorch {
  public static final String PYTHON = "/usr/bin/python3";

  private PythonTorch() {}

  public static void assumeInstalled() throws Exception {
    Process p = new ProcessBuilder(PYTHON, "-c", "import torch.distributed, thrift").redirectErrorStream(true).start();
    assumeTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0,
        "Debian's python3-torch and python3-thrift are not installed (bin/test installs them)");
  }
}
