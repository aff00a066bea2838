package org.edl.worker.coord;

/** One worker as the leader knows it: its id (the YARN container id) and where its data plane listens. */
public record Member(String id, String host, int dataPort, int gpuIndex) {
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
