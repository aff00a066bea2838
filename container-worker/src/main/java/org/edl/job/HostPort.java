package org.edl.job;


/** A {@code host:port} address as the election and the environment carry it. */
public record HostPort(String host, int port) {

  public static HostPort parse(String address) {
    int colon = address == null ? -1 : address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      throw new InvalidInputException("address", address, "expected host:port");
    }
    try {
      int port = Integer.parseInt(address.substring(colon + 1));
      if (port < 1 || port > 65535) {
        throw new InvalidInputException("address", address, "port out of range");
      }
      return new HostPort(address.substring(0, colon), port);
    } catch (NumberFormatException e) {
      throw new InvalidInputException("address", address, "port is not a number");
    }
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }
}
