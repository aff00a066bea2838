package org.edl.worker.cuda;

import jcuda.jcublas.JCublas2;
import jcuda.runtime.JCuda;
import org.edl.worker.gpu.GpuDevices;
import org.edl.worker.model.BatchedModel;
import org.edl.worker.model.ClassifierModel;

/**
 * {@code --backend cuda}: a built-in model whose matrix products run on the worker's GPU (the first
 * of those its container holds, {@link GpuDevices}), through JCuda's cuBLAS. JCuda and its
 * natives load only here, when a job asks for this backend; without a CUDA driver or without the
 * device, the worker fails at once with a message naming the host and the device.
 */
public final class CudaBackend {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CudaBackend.class);

  private CudaBackend() {}

  /** The whole error goes to the log; the message the user reads keeps its gist (see {@link #reasonOf}). */
  private static Throwable logged(Throwable e) {
    LOG.warn("The cuda backend could not start", e);
    return null;
  }

  /** Raised when this host cannot run the cuda backend; the message says why, naming host and device. */
  public static final class Unavailable extends IllegalStateException {
    Unavailable(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * {@code model} with its gradients computed on the device.
   *
   * @param gpus the worker's GPUs as its container holds them; the first is used
   * @param host this host's name, for the message
   * @throws Unavailable when no GPU was assigned, CUDA cannot be loaded, or the device is not there
   */
  public static ClassifierModel on(ClassifierModel model, GpuDevices gpus, String host) {
    if (gpus.isEmpty()) {
      throw new Unavailable("host " + host + ": --backend cuda needs a GPU, and YARN assigned this worker none"
          + " (gpus-per-worker is 0)", null);
    }
    int device = gpus.cudaOrdinals().get(0);
    String named = device == gpus.first() ? "CUDA device " + device
        : "GPU " + gpus.first() + " (CUDA device " + device + " in this container)";
    int count;
    try {
      JCuda.setExceptionsEnabled(true);
      JCublas2.setExceptionsEnabled(true);
      int[] devices = new int[1];
      JCuda.cudaGetDeviceCount(devices);
      count = devices[0];
    } catch (LinkageError | RuntimeException e) {
      throw new Unavailable("host " + host + ": " + named + " is not available: the CUDA runtime"
          + " does not load here (" + reasonOf(e) + "); --backend cuda needs an NVIDIA driver and the CUDA 12"
          + " runtime and cuBLAS libraries (libcudart.so.12, libcublas.so.12) on the node", logged(e));
    }
    if (device >= count) {
      throw new Unavailable("host " + host + ": no " + named + " (this host has " + count + ")", null);
    }
    try {
      return new BatchedModel(model, new CublasGemm(device));
    } catch (LinkageError | RuntimeException e) {
      throw new Unavailable("host " + host + ": cuBLAS on " + named + " failed to start: "
          + reasonOf(e), logged(e));
    }
  }

  /**
   * JCuda's load errors carry every nested stack trace in their message: the first line says what
   * failed, and a missing CUDA library is named where the system's loader said so.
   */
  static String reasonOf(Throwable t) {
    String m = String.valueOf(t.getMessage()).strip();
    int end = m.indexOf('\n');
    String first = (end < 0 ? m : m.substring(0, end)).strip();
    java.util.regex.Matcher missing = MISSING_LIBRARY.matcher(m);
    return missing.find() ? first + ": " + missing.group(1) + " not found" : first;
  }

  private static final java.util.regex.Pattern MISSING_LIBRARY =
      java.util.regex.Pattern.compile("([\\w.+-]+\\.so[\\w.]*): cannot open shared object file");
}
