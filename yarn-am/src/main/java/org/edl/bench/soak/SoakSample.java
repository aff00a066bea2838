package org.edl.bench.soak;

/**
 * What the soak benchmark records after every so many scale operations. -1 where a figure could
 * not be read (a process ended while it was probed).
 *
 * @param operations         scale operations completed
 * @param amThreads          threads of the AM's JVM
 * @param amFds              open file descriptors of the AM's JVM
 * @param clusterThreads     threads of the embedded cluster's JVM (the benchmark's own)
 * @param workerThreadsMax   threads of the busiest worker JVM
 * @param zkNodes            ZooKeeper nodes under {@code /edl}
 * @param hdfsFiles          files under the job's staging and output directories, its
 *                           per-container timelines left out (they are counted in {@code timelineFiles})
 * @param amHeapMb           the AM's heap after a full collection
 * @param clusterFds         open file descriptors of the cluster's JVM
 * @param clusterHeapMb      the cluster JVM's heap after a full collection
 * @param workerFdsMax       open file descriptors of the worker with most
 * @param workerHeapMaxMb    the largest worker heap after a full collection
 * @param timelineFiles      per-container timelines in the output directory: one per container
 *                           that has ended, by design
 * @param processes          live JVMs of the job's containers on this machine (the AM's included)
 * @param workers            workers in the ring
 * @param step               the job's step
 */
public record SoakSample(int operations, int amThreads, int amFds, int clusterThreads, int workerThreadsMax,
    int zkNodes, long hdfsFiles, double amHeapMb, int clusterFds, double clusterHeapMb, int workerFdsMax,
    double workerHeapMaxMb, long timelineFiles, int processes, int workers, long step) {}
