/**
 * The ResourceManager adapter: thin shells over {@link org.edl.scheduler.core.fair} and
 * {@link org.edl.scheduler.core.policy} that plug into the stock FairScheduler through its public
 * extension points.
 *
 * <ul>
 *   <li>{@link org.edl.scheduler.rm.UserFairPolicy}: the {@code schedulingPolicy} of the parent
 *       of the per-user queues; users by GPUs held relative to weight.
 *   <li>{@link org.edl.scheduler.rm.AppOrderPolicy}: the {@code schedulingPolicy} of each user
 *       queue; applications by priority, then submit time.
 *   <li>{@link org.edl.scheduler.rm.ElasticTiresiasPolicy}: the other mode's
 *       {@code schedulingPolicy}, for both levels; applications in the order
 *       {@link org.edl.scheduler.rm.TiresiasRanking} gets from the simulator's Tiresias policy.
 *   <li>{@link org.edl.scheduler.rm.GpuFairPreemptionPolicy}: a {@code SchedulingEditPolicy}
 *       that runs the preemption planner, warns the application masters and kills after a
 *       grace period; each round it also ranks the Elastic-Tiresias queues' applications.
 *   <li>{@link org.edl.scheduler.rm.EdlFairScheduler}: the FairScheduler itself, refusing
 *       a bad allocation file with an error naming file, queue and value.
 * </ul>
 */
package org.edl.scheduler.rm;
