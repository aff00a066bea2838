package org.edl.job;

/**
 * What each worker container asks YARN for.
 *
 * @param gpusPerWorker {@code yarn.io/gpu} per worker container
 * @param memoryMb      memory per worker container
 * @param vcores        vcores per worker container
 */
public record Resources(int gpusPerWorker, int memoryMb, int vcores) {}
