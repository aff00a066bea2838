package org.edl.cluster.hosts;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;

/** Run inside a host: listens for UDP on its address, prints "listening", then each datagram as a line. */
public final class DatagramTally {
  private DatagramTally() {}

  public static void main(String[] args) throws Exception {
    try (DatagramSocket socket = new DatagramSocket(Integer.parseInt(args[1]), InetAddress.getByName(args[0]))) {
      System.out.println("listening");
      System.out.flush();
      byte[] buffer = new byte[512];
      while (true) {
        DatagramPacket p = new DatagramPacket(buffer, buffer.length);
        socket.receive(p);
        System.out.println(new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8).strip());
        System.out.flush();
      }
    }
  }
}
