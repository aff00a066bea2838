/**
 * The ResourceManager adapter: thin shells over {@link org.edl.scheduler.core.fair} that plug
 * into the stock FairScheduler through its public extension points.
 *
 * <ul>
 *   <li>{@link org.edl.scheduler.rm.UserFairPolicy}: the {@code schedulingPolicy} of the parent
 *       of the per-user queues; users by GPUs held relative to weight.
 *   <li>{@link org.edl.scheduler.rm.AppOrderPolicy}: the {@code schedulingPolicy} of each user
 *       queue; applications by priority, then submit time.
 *   <li>{@link org.edl.scheduler.rm.GpuFairPreemptionPolicy}: a {@code SchedulingEditPolicy}
 *       that runs the preemption planner, warns the application masters and kills after a
 *       grace period.
 *   <li>{@link org.edl.scheduler.rm.EdlFairScheduler}: the FairScheduler itself, refusing
 *       a bad allocation file with an error naming file, queue and value.
 * </ul>
 */
package org.edl.scheduler.rm;
