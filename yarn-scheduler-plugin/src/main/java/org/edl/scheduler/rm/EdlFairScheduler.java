package org.edl.scheduler.rm;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.AllocationConfigurationException;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairSchedulerConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stock FairScheduler with two additions, so that the RM web UI, REST, ACLs and
 * {@code -movetoqueue} stay the stock ones ({@code instanceof FairScheduler} holds):
 *
 * <ul>
 *   <li>a bad allocation file ({@link AllocationFileCheck}) stops the RM from starting, and
 *       makes {@code yarn rmadmin -refreshQueues} fail with an error naming file, queue and
 *       value while the scheduler keeps its previous configuration. (The stock
 *       {@code reinitialize} only logs the failure and reports success.) A refresh changes the
 *       queues and nothing else: the scheduler keeps the configuration it started with (the
 *       stock one takes the maximum allocation and resource types from a configuration read anew
 *       from the class path, and on an RM without a yarn-site.xml there loses its GPUs).
 *   <li>application priorities are kept ({@link AppPriorities}) for {@link AppOrderPolicy}; the
 *       stock FairScheduler drops them. They are capped at {@code
 *       yarn.cluster.max-application-priority}.
 * </ul>
 *
 * <p>FairScheduler's own reload of a changed allocation file (about 10 s after each change)
 * goes through the same check ({@link CheckedReload}): a file {@code refreshQueues} refuses is not
 * applied in the background either.
 */
public class EdlFairScheduler extends FairScheduler {
  private static final Logger LOG = LoggerFactory.getLogger(EdlFairScheduler.class);

  @Override
  public void serviceInit(Configuration conf) throws Exception {
    File file = allocationFile(conf);
    if (file != null) {
      AllocationFileCheck.check(file);
    }
    super.serviceInit(conf);
    CheckedReload.install(this, () -> allocationFile(getConfig()));
  }

  @Override
  public void reinitialize(Configuration conf, RMContext rmContext) throws IOException {
    File file = allocationFile(getConf());
    if (file != null) {
      try {
        AllocationFileCheck.check(file);
      } catch (AllocationConfigurationException e) {
        LOG.error("Refusing to reload the queues; keeping the previous configuration: {}",
            e.getMessage());
        throw new IOException(e.getMessage(), e);
      }
    }
    // The admin service hands in a configuration freshly read from the RM's class path, which an
    // embedded RM (and any RM configured in code) does not have: the resource types and maximum
    // allocation in it are defaults, and GPU requests would be refused until a restart. A refresh
    // changes the queues, so the scheduler keeps the configuration it started with; the
    // allocation file it names is read again.
    super.reinitialize(getConfig(), rmContext);
  }

  @Override
  public Priority checkAndGetApplicationPriority(
      Priority submitted, UserGroupInformation user, String queue, ApplicationId app) {
    int max = getMaxClusterLevelAppPriority().getPriority();
    int p = submitted == null ? 0 : Math.max(0, Math.min(max, submitted.getPriority()));
    AppPriorities.put(app, p);
    return Priority.newInstance(p);
  }

  @Override
  public void handle(SchedulerEvent event) {
    super.handle(event);
    if (event instanceof AppRemovedSchedulerEvent removed) {
      AppPriorities.remove(removed.getApplicationID());
    }
  }

  /** The allocation file as FairScheduler finds it, or null if it is not a local file. */
  static File allocationFile(Configuration conf) {
    String name =
        conf.get(FairSchedulerConfiguration.ALLOCATION_FILE, "fair-scheduler.xml").trim();
    if (name.startsWith("file:")) {
      name = name.substring("file:".length());
    }
    File f = new File(name);
    if (f.isAbsolute()) {
      return f.exists() ? f : null;
    }
    if (name.contains("://")) {
      return null;
    }
    URL url = Thread.currentThread().getContextClassLoader().getResource(name);
    if (url == null || !"file".equals(url.getProtocol())) {
      return null;
    }
    try {
      return new File(url.toURI());
    } catch (URISyntaxException e) {
      return null;
    }
  }
}
