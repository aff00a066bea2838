package org.edl.client;

/** Run by {@link ApplicationJarTest} under Hadoop's {@code RunJar}: prints what the client would ship. */
public final class ApplicationJarProbe {
  private ApplicationJarProbe() {}

  public static void main(String[] args) throws Exception {
    System.out.println(ApplicationJar.locate(ApplicationJarProbe.class));
    System.out.println(ApplicationJar.withLocalClasspath(args.length > 0 ? args[0] : ""));
  }
}
