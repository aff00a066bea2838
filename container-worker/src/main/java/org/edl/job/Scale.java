package org.edl.job;

/**
 * How many workers a job runs with.
 *
 * @param workers    workers to start with
 * @param minWorkers the job never runs with fewer
 * @param maxWorkers the job never runs with more
 */
public record Scale(int workers, int minWorkers, int maxWorkers) {}
