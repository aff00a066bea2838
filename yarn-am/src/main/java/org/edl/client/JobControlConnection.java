package org.edl.client;

import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.edl.job.rpc.RpcConnection;
import org.edl.thrift.JobControl;

/** An authenticated connection to one job's AM; one caller at a time, like Thrift's clients. */
public final class JobControlConnection implements AutoCloseable {
  private final ApplicationId appId;
  private final RpcConnection connection;
  private final JobControl.Client control;

  JobControlConnection(ApplicationId appId, RpcConnection connection) {
    this.appId = appId;
    this.connection = connection;
    this.control = new JobControl.Client(connection.protocol());
  }

  public ApplicationId appId() {
    return appId;
  }

  /** {@code host:port} of the AM's job-control endpoint. */
  public String endpoint() {
    return connection.peer();
  }

  public JobControl.Iface control() {
    return control;
  }

  @Override
  public void close() {
    connection.close();
  }
}
