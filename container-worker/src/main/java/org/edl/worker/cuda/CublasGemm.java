package org.edl.worker.cuda;

import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.jcublas.JCublas2;
import jcuda.jcublas.cublasHandle;
import jcuda.jcublas.cublasOperation;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaMemcpyKind;
import org.edl.worker.model.Gemm;

/**
 * {@link Gemm} by cuBLAS's {@code sgemm} on one device. cuBLAS is column-major: a row-major
 * {@code r x c} matrix is its {@code c x r} transpose there, so {@code C = op(A) op(B)} is asked
 * as {@code C^T = op(B)^T op(A)^T} with the operands swapped. Device buffers grow to the largest
 * batch and are kept; every call selects the device first (CUDA's current device is per thread).
 */
final class CublasGemm implements Gemm, AutoCloseable {
  private static final Pointer ONE = Pointer.to(new float[] {1f});
  private static final Pointer ZERO = Pointer.to(new float[] {0f});

  private final int device;
  private final cublasHandle handle = new cublasHandle();
  private final Buffer a = new Buffer();
  private final Buffer b = new Buffer();
  private final Buffer c = new Buffer();

  CublasGemm(int device) {
    this.device = device;
    JCuda.cudaSetDevice(device);
    JCublas2.cublasCreate(handle);
  }

  @Override
  public synchronized float[] multiply(boolean transA, boolean transB, int m, int n, int k, float[] hostA,
      float[] hostB) {
    JCuda.cudaSetDevice(device);
    Pointer dA = a.upload(hostA);
    Pointer dB = b.upload(hostB);
    Pointer dC = c.reserve((long) m * n);
    int lda = transA ? m : k;
    int ldb = transB ? k : n;
    JCublas2.cublasSgemm(handle, transB ? cublasOperation.CUBLAS_OP_T : cublasOperation.CUBLAS_OP_N,
        transA ? cublasOperation.CUBLAS_OP_T : cublasOperation.CUBLAS_OP_N, n, m, k, ONE, dB, ldb, dA, lda, ZERO,
        dC, n);
    float[] out = new float[m * n];
    JCuda.cudaMemcpy(Pointer.to(out), dC, (long) out.length * Sizeof.FLOAT, cudaMemcpyKind.cudaMemcpyDeviceToHost);
    return out;
  }

  @Override
  public synchronized void close() {
    JCuda.cudaSetDevice(device);
    a.free();
    b.free();
    c.free();
    JCublas2.cublasDestroy(handle);
  }

  /** A device array of floats that only grows. */
  private static final class Buffer {
    private Pointer pointer;
    private long floats;

    Pointer reserve(long needed) {
      if (pointer == null || floats < needed) {
        free();
        pointer = new Pointer();
        JCuda.cudaMalloc(pointer, needed * Sizeof.FLOAT);
        floats = needed;
      }
      return pointer;
    }

    Pointer upload(float[] host) {
      Pointer p = reserve(host.length);
      JCuda.cudaMemcpy(p, Pointer.to(host), (long) host.length * Sizeof.FLOAT, cudaMemcpyKind.cudaMemcpyHostToDevice);
      return p;
    }

    void free() {
      if (pointer != null) {
        JCuda.cudaFree(pointer);
        pointer = null;
        floats = 0;
      }
    }
  }
}
