package org.edl.am;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.edl.testing.PythonTorch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The AM's rendezvous store for a --torchrun job: what a user sees when it cannot run or stops. */
class TorchrunRendezvousTest {
  @TempDir
  Path dir;

  private void launcherIn(Path d) throws IOException {
    try (InputStream in = StagingLayout.torchrunLauncher()) {
      Files.copy(in, d.resolve(StagingLayout.TORCHRUN_LAUNCHER));
    }
  }

  @Test
  void anInterpreterWithoutTorchIsNamed() throws Exception {
    launcherIn(dir);
    Path fake = dir.resolve("python-without-torch");
    Files.writeString(fake, "#!/bin/sh\necho 'ModuleNotFoundError: No module named torch' >&2\nexit 1\n");
    fake.toFile().setExecutable(true);
    IOException e = assertThrows(IOException.class, () -> TorchrunRendezvous.start(fake.toString(), dir, "app_1",
        p -> { }, x -> { }));
    assertTrue(e.getMessage().contains(fake + " have torch?"), e.getMessage());
  }

  @Test
  void aStoreThatStopsIsReportedAndAClosedOneIsNot() throws Exception {
    PythonTorch.assumeInstalled();
    launcherIn(dir);
    CompletableFuture<IOException> exited = new CompletableFuture<>();
    TorchrunRendezvous store = TorchrunRendezvous.start(PythonTorch.PYTHON, dir, "app_1", p -> { }, exited::complete);
    assertTrue(store.port() > 0);
    ProcessHandle.current().children().filter(h -> h.info().commandLine().orElse("").contains("store"))
        .forEach(ProcessHandle::destroyForcibly);
    IOException why = exited.get(30, TimeUnit.SECONDS);
    assertTrue(why.getMessage().startsWith("the rendezvous store exited with status "), why.getMessage());
    store.close();

    CompletableFuture<IOException> quiet = new CompletableFuture<>();
    // close() returns once the store's reader has seen its end: anything it reported is in by then.
    TorchrunRendezvous.start(PythonTorch.PYTHON, dir, "app_2", p -> { }, quiet::complete).close();
    assertTrue(!quiet.isDone(), "closed by the AM: " + quiet);
  }
}
