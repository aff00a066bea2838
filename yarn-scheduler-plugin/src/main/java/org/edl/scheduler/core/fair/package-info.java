/**
 * Run:AI-style fair GPU sharing between users, as plain values and pure decisions.
 *
 * <ul>
 *   <li>{@link org.edl.scheduler.core.fair.FairOrder}: the two orders of the two-level heap
 *       (users by GPUs held relative to weight; a user's requests by priority, then submit
 *       time). The ResourceManager's {@code SchedulingPolicy} classes call these directly.
 *   <li>{@link org.edl.scheduler.core.fair.UserHeap}: the simulator's allocator (in the
 *       ResourceManager the FairScheduler allocates, ordered by {@code FairOrder}). Pops the most
 *       starved user, places its first request, updates the count, repeats while GPUs are free.
 *   <li>{@link org.edl.scheduler.core.fair.DeservedShares}: weighted max-min water-filling over
 *       each active user's demand.
 *   <li>{@link org.edl.scheduler.core.fair.PreemptionPlanner}: which elastic extras to take back so
 *       that starved users' requests can be placed; a pure function of a
 *       {@link org.edl.scheduler.core.fair.ClusterSnapshot}.
 * </ul>
 *
 * <p>GPUs are whole numbers throughout: YARN hands out {@code yarn.io/gpu} in units, and a share
 * of 2.5 GPUs cannot be preempted towards. Nothing here reads a clock; the snapshot carries the
 * time it was taken.
 */
package org.edl.scheduler.core.fair;
