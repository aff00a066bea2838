package org.edl.job;


/**
 * The job's ZooKeeper layout, in one place:
 *
 * <pre>
 * /edl/&lt;appId&gt;/epoch        the newest leader epoch (persistent)
 * /edl/&lt;appId&gt;/job          the leader's record (persistent)
 * /edl/&lt;appId&gt;/leader/...   the election (Curator LeaderLatch)
 * /edl/&lt;appId&gt;/members/&lt;id&gt; each worker's presence (ephemeral)
 * /edl/&lt;appId&gt;/am           the ApplicationMaster's address (ephemeral)
 * /edl/&lt;appId&gt;/fleet        the AM's intent for a later attempt
 * /edl/&lt;appId&gt;/gpus/&lt;id&gt;    GPU indices each container uses (the AM's suggestion until the worker holds its own)
 * </pre>
 */
public final class JobPaths {
  /** ZooKeeper root of all EDL jobs. */
  public static final String ROOT = "/edl";

  private JobPaths() {}

  public static String job(String appId) {
    return root(appId) + "/job";
  }

  public static String epoch(String appId) {
    return root(appId) + "/epoch";
  }

  public static String leader(String appId) {
    return root(appId) + "/leader";
  }

  public static String am(String appId) {
    return root(appId) + "/am";
  }

  public static String fleet(String appId) {
    return root(appId) + "/fleet";
  }

  public static String gpus(String appId) {
    return root(appId) + "/gpus";
  }

  public static String members(String appId) {
    return root(appId) + "/members";
  }

  /** {@code /edl/<appId>}; refuses an id that would leave it. */
  public static String root(String appId) {
    if (appId == null || appId.isBlank() || appId.contains("/")) {
      throw new IllegalArgumentException("bad application id for a ZooKeeper path: " + appId);
    }
    return ROOT + "/" + appId;
  }
}
