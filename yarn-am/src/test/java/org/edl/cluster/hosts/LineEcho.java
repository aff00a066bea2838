package org.edl.cluster.hosts;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** Run inside a host: listens on its address, prints "listening", answers one line with "echo: " + it. */
public final class LineEcho {
  private LineEcho() {}

  public static void main(String[] args) throws Exception {
    try (ServerSocket server = new ServerSocket(Integer.parseInt(args[1]), 1, InetAddress.getByName(args[0]))) {
      System.out.println("listening");
      System.out.flush();
      server.setSoTimeout(60_000);
      try (Socket s = server.accept();
           BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
           PrintWriter out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8)) {
        out.println("echo: " + in.readLine() + " from " + s.getInetAddress().getHostAddress());
      }
    }
  }
}
