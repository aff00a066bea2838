package org.edl.client;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.util.Records;
import org.edl.job.InvalidInputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Which application reports the CLI may control, decided without a cluster. */
class JobControlLocatorTest {
  private static final ApplicationId APP = ApplicationId.newInstance(1700000000000L, 42);

  @Test
  void aRunningEdlJobWithAnEndpointIsControllable() {
    assertDoesNotThrow(() -> JobControlLocator.requireRunningEdlJob(
        report(YarnApplicationState.RUNNING, FinalApplicationStatus.UNDEFINED, "am-host", 4711)));
  }

  @ParameterizedTest
  @EnumSource(value = YarnApplicationState.class, names = {"NEW", "NEW_SAVING", "SUBMITTED", "ACCEPTED"})
  void notStartedYet(YarnApplicationState state) {
    InvalidInputException e = assertThrows(InvalidInputException.class, () -> JobControlLocator
        .requireRunningEdlJob(report(state, FinalApplicationStatus.UNDEFINED, "N/A", -1)));
    assertEquals("application", e.field());
    assertEquals(APP.toString(), e.value());
    assertTrue(e.getMessage().contains("application " + APP + " is " + state + " (UNDEFINED), not running"),
        e.getMessage());
    assertTrue(e.getMessage().contains("not started yet"), e.getMessage());
  }

  @Test
  void failedJobSaysSoWithItsDiagnostics() {
    ApplicationReport r = report(YarnApplicationState.FAILED, FinalApplicationStatus.FAILED, "N/A", -1);
    r.setDiagnostics("worker container_1_0042_01_000003 exited with 137");
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> JobControlLocator.requireRunningEdlJob(r));
    assertTrue(e.getMessage().contains("is FAILED (FAILED), not running: it has ended"), e.getMessage());
    assertTrue(e.getMessage().contains("exited with 137"), e.getMessage());
  }

  /**
   * In a job's last seconds the AM has unregistered and deleted the staging directory (and the
   * secret) while YARN still says RUNNING: the job is ending, which is what the user is told.
   */
  @Test
  void aJobWhoseAmHasUnregisteredIsEndingNotMissingItsSecret() throws Exception {
    org.apache.hadoop.yarn.client.api.YarnClient yarn = org.mockito.Mockito.mock(
        org.apache.hadoop.yarn.client.api.YarnClient.class);
    org.mockito.Mockito.when(yarn.getApplicationReport(APP)).thenReturn(
        report(YarnApplicationState.RUNNING, FinalApplicationStatus.UNDEFINED, "am-host", 4711),
        report(YarnApplicationState.RUNNING, FinalApplicationStatus.SUCCEEDED, "am-host", 4711));
    org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(false);
    conf.set("fs.defaultFS", "file:///");
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> new JobControlLocator(conf, yarn).connect(APP.toString(), java.time.Duration.ofSeconds(1)));
    assertEquals("application", e.field());
    assertTrue(e.getMessage().contains("application " + APP + " is ending (SUCCEEDED)")
        && !e.getMessage().contains("cannot read the job secret"), e.getMessage());
  }

  @Test
  void runningWithoutAnEndpointYet() {
    InvalidInputException e = assertThrows(InvalidInputException.class, () -> JobControlLocator
        .requireRunningEdlJob(report(YarnApplicationState.RUNNING, FinalApplicationStatus.UNDEFINED, "N/A", -1)));
    assertTrue(e.getMessage().contains("has not published a job-control endpoint"), e.getMessage());
  }

  @Test
  void anotherFrameworksApplicationIsNotAnEdlJob() {
    ApplicationReport r = report(YarnApplicationState.RUNNING, FinalApplicationStatus.UNDEFINED, "am-host", 4711);
    r.setApplicationType("MAPREDUCE");
    InvalidInputException e = assertThrows(InvalidInputException.class,
        () -> JobControlLocator.requireRunningEdlJob(r));
    assertTrue(e.getMessage().contains("is not an EDL job (type MAPREDUCE)"), e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"application_x", "app_1_2", "application_1700000000000", "", "42"})
  void malformedIdsNameTheValue(String text) {
    InvalidInputException e = assertThrows(InvalidInputException.class, () -> JobControlLocator.parse(text));
    assertEquals("application", e.field());
    assertEquals(text, e.value());
    assertTrue(e.getMessage().contains("not an application id"), e.getMessage());
  }

  @Test
  void wellFormedIdParses() {
    assertEquals(APP, JobControlLocator.parse(" " + APP + " "));
  }

  private static ApplicationReport report(YarnApplicationState state, FinalApplicationStatus status,
      String host, int rpcPort) {
    ApplicationReport r = Records.newRecord(ApplicationReport.class);
    r.setApplicationId(APP);
    r.setApplicationType(JobSubmitter.APPLICATION_TYPE);
    r.setYarnApplicationState(state);
    r.setFinalApplicationStatus(status);
    r.setHost(host);
    r.setRpcPort(rpcPort);
    r.setUser("alice");
    return r;
  }
}
