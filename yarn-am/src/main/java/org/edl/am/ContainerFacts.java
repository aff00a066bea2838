package org.edl.am;

/**
 * What the fleet knows of one container when it ends ({@link ExitRules#judge}).
 *
 * @param known             the fleet holds it (not one it released, or that ended before)
 * @param departure         why the change under way expects it to leave, or null
 * @param newcomer          launched while the job ran, and the change that brought it has not
 *                          landed: as far as the fleet knows it is not in the ring yet
 * @param migrationNewcomer one of the migration's newcomers on the target host
 * @param warned            the resource manager named it in a preemption warning
 * @param counted           its failure was counted already
 */
record ContainerFacts(String containerId, boolean known, FleetChange.Departure departure, boolean newcomer,
    boolean migrationNewcomer, boolean warned, boolean counted) {

  static ContainerFacts unknown(String containerId) {
    return new ContainerFacts(containerId, false, null, false, false, false, false);
  }
}
