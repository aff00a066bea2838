package org.edl.worker.coord;

/** Where the finished job's model and metrics were written. */
public record JobOutput(String modelPath, String metricsPath) {}
