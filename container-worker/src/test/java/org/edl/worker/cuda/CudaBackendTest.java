package org.edl.worker.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.edl.worker.data.Dataset;
import org.edl.worker.gpu.GpuDevices;
import org.edl.worker.model.ClassifierModel;
import org.edl.worker.model.Mlp;
import org.edl.worker.model.SoftmaxRegression;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIf;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The cuda backend: on a host without CUDA it refuses at once, naming the host and the device;
 * with CUDA (tests tagged {@code gpu}, run only where an NVIDIA driver is loaded) it trains both
 * built-in models to the same parameters as the cpu backend from the same seed.
 */
class CudaBackendTest {
  /** The NVIDIA kernel driver is loaded: the gpu tests can run. */
  static boolean cudaPresent() {
    return Files.exists(Path.of("/proc/driver/nvidia/version"));
  }

  @Test
  void aWorkerWithoutAGpuIsRefusedNamingItsHost() {
    CudaBackend.Unavailable e = assertThrows(CudaBackend.Unavailable.class,
        () -> CudaBackend.on(new SoftmaxRegression(4, 2, 1), GpuDevices.NONE, "node-7"));
    assertTrue(e.getMessage().contains("host node-7") && e.getMessage().contains("assigned this worker none"),
        e.getMessage());
  }

  @Test
  @DisabledIf("cudaPresent")
  void withoutADriverTheErrorNamesTheHostAndTheMissingDevice() {
    CudaBackend.Unavailable e = assertThrows(CudaBackend.Unavailable.class,
        () -> CudaBackend.on(new SoftmaxRegression(4, 2, 1), claimed(3), "node-7"));
    assertTrue(e.getMessage().contains("host node-7: CUDA device 3 is not available"), e.getMessage());
    assertTrue(e.getMessage().contains("NVIDIA driver"), e.getMessage());
  }

  @Test
  void jcudasLoadErrorIsCutToWhatFailedAndTheMissingLibrary() {
    String jcuda = "Error while loading native library \"JCublas2-12.0.0-linux-x86_64\"\nStack trace from the"
        + " attempt to load the library as a resource:\njava.lang.UnsatisfiedLinkError: /tmp/x/libJCublas2-12.0.0"
        + "-linux-x86_64.so: libcublas.so.12: cannot open shared object file: No such file or directory\n\tat ...";
    assertEquals("Error while loading native library \"JCublas2-12.0.0-linux-x86_64\": libcublas.so.12 not found",
        CudaBackend.reasonOf(new UnsatisfiedLinkError(jcuda)));
  }

  @Test
  @Tag("gpu")
  @EnabledIf("cudaPresent")
  void onTheGpuBothModelsTrainToTheCpuParameters() {
    trainsLikeTheCpu(new Mlp(64, 128, 10, 11), new Mlp(64, 128, 10, 11));
    trainsLikeTheCpu(new SoftmaxRegression(64, 10, 11), new SoftmaxRegression(64, 10, 11));
  }

  @Test
  @Tag("gpu")
  @EnabledIf("cudaPresent")
  void aDeviceThisHostDoesNotHaveIsNamed() {
    CudaBackend.Unavailable e = assertThrows(CudaBackend.Unavailable.class,
        () -> CudaBackend.on(new SoftmaxRegression(4, 2, 1), claimed(4096), "node-7"));
    assertTrue(e.getMessage().contains("host node-7: no CUDA device 4096"), e.getMessage());
  }

  /**
   * Under YARN's Docker runtime the node's GPU 5 is the container's CUDA device 0: the message
   * names both, and the device opened is the container's.
   */
  @Test
  @DisabledIf("cudaPresent")
  void aDeviceYarnsDockerRuntimeGaveIsNamedByBothNumbers() {
    CudaBackend.Unavailable e = assertThrows(CudaBackend.Unavailable.class,
        () -> CudaBackend.on(new SoftmaxRegression(4, 2, 1), new GpuDevices(List.of(5), List.of(0), "docker"), "node-7"));
    assertTrue(e.getMessage().contains("host node-7: GPU 5 (CUDA device 0 in this container) is not available"),
        e.getMessage());
  }

  private static GpuDevices claimed(int index) {
    return new GpuDevices(List.of(index), List.of(index), "claimed");
  }

  private static void trainsLikeTheCpu(ClassifierModel cpu, ClassifierModel twin) {
    ClassifierModel cuda = CudaBackend.on(twin, claimed(0), "this host");
    Dataset data = dataset(512, 64, 10);
    int[] order = new int[data.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    for (int step = 0; step < 8; step++) {
      int from = step * 64;
      float[] g1 = new float[cpu.parameters().length];
      float[] g2 = new float[cuda.parameters().length];
      cpu.accumulateGradients(data, order, from, from + 64, g1);
      cuda.accumulateGradients(data, order, from, from + 64, g2);
      cpu.applyGradients(g1, 0.05f / 64);
      cuda.applyGradients(g2, 0.05f / 64);
    }
    assertArrayEquals(cpu.parameters(), cuda.parameters(), 1e-3f, cpu.name() + " after 8 steps");
  }

  private static Dataset dataset(int rows, int features, int classes) {
    Random r = new Random(5);
    float[] x = new float[rows * features];
    int[] y = new int[rows];
    for (int i = 0; i < rows; i++) {
      y[i] = r.nextInt(classes);
      for (int j = 0; j < features; j++) {
        x[i * features + j] = (float) r.nextGaussian();
      }
    }
    return new Dataset(x, y, features, classes);
  }
}
