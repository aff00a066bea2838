package org.edl.job.rpc;

import org.edl.job.BatchRule;
import org.edl.job.ScaleMode;

/**
 * The job API's enums and the protocol's of the same names, converted by name: a value one side
 * lacks fails here at once (WireEnumsTest holds them equal) rather than travelling as another.
 */
public final class WireEnums {
  private WireEnums() {
  }

  public static org.edl.thrift.BatchRule toWire(BatchRule rule) {
    return org.edl.thrift.BatchRule.valueOf(rule.name());
  }

  public static BatchRule batchRule(org.edl.thrift.BatchRule rule) {
    return rule == null ? null : BatchRule.valueOf(rule.name());
  }

  /** A client that sent no mode gets the fleet's default (null stays null). */
  public static ScaleMode scaleMode(org.edl.thrift.ScaleMode mode) {
    return mode == null ? null : ScaleMode.valueOf(mode.name());
  }
}
