/**
 * The scheduling policy core: plain value types and pure decisions (user heap, deserved shares,
 * preemption planning, cluster policies), with the clock passed in. It imports no Hadoop, Thrift
 * or worker class, so the ResourceManager adapter and the trace simulator run the same code.
 */
package org.edl.scheduler.core;
