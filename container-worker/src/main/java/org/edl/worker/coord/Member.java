package org.edl.worker.coord;

/**
 * One worker as the leader knows it: its id (the YARN container id), where its data plane
 * listens, and the node it runs on (its NodeManager's id; the host where none was given).
 */
public record Member(String id, String host, int dataPort, int gpuIndex, String node, int scriptPort) {
  public Member(String id, String host, int dataPort, int gpuIndex, String node) {
    this(id, host, dataPort, gpuIndex, node, -1);
  }

  public Member(String id, String host, int dataPort, int gpuIndex) {
    this(id, host, dataPort, gpuIndex, host);
  }

  public Member(String id, String host, int dataPort) {
    this(id, host, dataPort, -1);
  }

  boolean sameAddress(Member other) {
    return host.equals(other.host) && dataPort == other.dataPort;
  }

  String address() {
    return host + ":" + dataPort;
  }
}
