package org.edl.scheduler.core.policy;

import java.util.function.IntToDoubleFunction;

/** A job whose state a test sets by hand. */
final class FakeJob implements PolicyJob {
  final long id;
  final String user;
  final int requested;
  final double submit;
  int gpus;
  double attained;
  double executed;
  double lastStopped;
  IntToDoubleFunction speedup = n -> n;
  boolean elastic = true;

  FakeJob(long id, String user, int requested, double submit) {
    this.id = id;
    this.user = user;
    this.requested = requested;
    this.submit = submit;
  }

  @Override
  public long id() {
    return id;
  }

  @Override
  public String user() {
    return user;
  }

  @Override
  public int requestedGpus() {
    return requested;
  }

  @Override
  public double submitTime() {
    return submit;
  }

  @Override
  public int gpus() {
    return gpus;
  }

  @Override
  public double attainedGpuSeconds(double now) {
    return attained;
  }

  @Override
  public double executedSeconds(double now) {
    return executed;
  }

  @Override
  public double lastStoppedAt() {
    return Math.max(submit, lastStopped);
  }

  @Override
  public double speedup(int n) {
    return n <= 0 ? 0 : speedup.applyAsDouble(n);
  }

  @Override
  public String toString() {
    return "job " + id;
  }

  @Override
  public boolean elastic() {
    return elastic;
  }
}
