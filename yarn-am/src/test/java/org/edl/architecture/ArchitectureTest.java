package org.edl.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The arrows between the modules (docs/architecture.md, "Modules and arrows"), checked on the
 * compiled main classes of every module. edl-am depends on all the other modules, so its tests
 * are the one place where they can all be seen; each package belongs to one module:
 *
 * <pre>
 * edl-thrift     (thrift/)                org.edl.thrift
 * edl-worker     (container-worker/)      org.edl.job.. (the job API), org.edl.worker.. (the runtime)
 * edl-scheduler  (yarn-scheduler-plugin/) org.edl.scheduler.. (core, sim: pure Java; rm: the RM adapter)
 * edl-am         (yarn-am/)               org.edl.am.., org.edl.client.., org.edl.cli.. (what runs on
 *                                         a cluster), org.edl.cluster.., org.edl.bench..,
 *                                         org.edl.devtools.. (the embedded cluster, the benchmark
 *                                         drivers and bin/edl's demo, cluster and bench)
 * </pre>
 *
 * The scheduler module also guards itself (NoHadoopImportsTest there), so that its own build
 * fails without this module.
 */
@AnalyzeClasses(packages = "org.edl",
    importOptions = {ImportOption.DoNotIncludeTests.class, ArchitectureTest.DoNotIncludeTestJars.class})
class ArchitectureTest {
  /**
   * Under {@code mvn verify} the reactor hands this module edl-worker's test fixtures as its
   * packaged {@code -tests.jar}, which DoNotIncludeTests (made for test-classes directories) lets in.
   */
  static final class DoNotIncludeTestJars implements ImportOption {
    @Override
    public boolean includes(com.tngtech.archunit.core.importer.Location location) {
      return !location.contains("-tests.jar");
    }
  }

  /**
   * edl-am's packages that the AM rule covers. org.edl.bench and org.edl.devtools are left out:
   * the benchmark drivers run workers in this JVM (org.edl.worker.runtime.Worker and what it
   * needs) and `bin/edl bench allreduce` runs org.edl.worker.bench; none of them goes into the
   * yarn jar ({@link #clusterCodeNeedsNoDevToolsOrTestLibraries} keeps it that way).
   */
  private static final String[] AM = {"org.edl.am..", "org.edl.client..", "org.edl.cli..", "org.edl.cluster.."};

  /** What the yarn jar (yarn-am/pom.xml, maven-shade-plugin filters) leaves out of org.edl. */
  private static final String[] DEV_TOOLS = {
      "org.edl.cluster..", "org.edl.bench..", "org.edl.devtools..", "org.edl.worker.bench.."};

  /**
   * Classes of the worker runtime that edl-am may use besides the job API, each with why. The
   * client checks a submission against what the workers will do with it, with the workers' own
   * code rather than a copy that could drift from it.
   */
  static final Map<String, String> AM_MAY_USE = Map.ofEntries(
      Map.entry("org.edl.worker.checkpoint.Checkpoint",
          "--resume-from and `edl checkpoints` read a checkpoint as a restoring worker would"),
      Map.entry("org.edl.worker.checkpoint.CheckpointDirectory",
          "... and a stop-resume or --resume-from takes a directory's newest checkpoint that verifies, as workers do"),
      Map.entry("org.edl.worker.checkpoint.CheckpointMeta",
          "... and check its meta-data (step, model, shape, batch rule) against the submitted job"),
      Map.entry("org.edl.worker.checkpoint.CheckpointCatalog",
          "`edl checkpoints` and the job page list a job's checkpoints as the workers name and write them"),
      Map.entry("org.edl.worker.data.DatasetLoader", "the client validates the data set before it submits"),
      Map.entry("org.edl.worker.data.DatasetSummary", "... and a synthetic one's shape for --resume-from"),
      Map.entry("org.edl.worker.data.SyntheticSpec", "... parsed as the workers parse synthetic:samples=.."),
      Map.entry("org.edl.worker.model.ModelFactory", "--resume-from builds the model to check the checkpoint fits"),
      Map.entry("org.edl.worker.model.TrainableModel", "... the type ModelFactory returns"),
      Map.entry("org.edl.worker.model.IncompatibleStateException", "... and the error a mismatch raises"),
      Map.entry("org.edl.worker.emulated.EmulatedModels", "an emulated job grows by the profile its workers pace"
          + " themselves by (ProfiledThroughput), read from the worker jar as the workers read it"),
      Map.entry("org.edl.worker.emulated.StepProfile", "... the step times in it"));

  private static final DescribedPredicate<JavaClass> WORKER_INTERNALS_THE_AM_MAY_NOT_USE =
      DescribedPredicate.describe("are in the worker runtime, neither in the job API nor in ArchitectureTest.AM_MAY_USE",
          c -> c.getPackageName().startsWith("org.edl.worker") && !AM_MAY_USE.containsKey(topLevel(c)));

  @ArchTest
  static final ArchRule amUsesTheWorkerOnlyThroughTheJobApi = noClasses()
      .that().resideInAnyPackage(AM)
      .should().dependOnClassesThat(WORKER_INTERNALS_THE_AM_MAY_NOT_USE)
      .because("edl-am and the workers share org.edl.job (the job API); the rest of the worker is its own");

  /** AM_MAY_USE stays as small as it is: an entry the AM no longer uses fails here. */
  @ArchTest
  static void everyClassTheAmMayUseIsUsed(JavaClasses classes) {
    Set<String> used = new TreeSet<>();
    for (JavaClass c : classes.that(resideInAnyPackage(AM))) {
      for (Dependency d : c.getDirectDependenciesFromSelf()) {
        String target = topLevel(d.getTargetClass());
        if (AM_MAY_USE.containsKey(target)) {
          used.add(target);
        }
      }
    }
    assertEquals(new TreeSet<>(AM_MAY_USE.keySet()), used, "ArchitectureTest.AM_MAY_USE lists a class edl-am does not use");
  }

  @ArchTest
  static final ArchRule workerNeverImportsTheAm = noClasses()
      .that().resideInAnyPackage("org.edl.worker..", "org.edl.job..")
      .should().dependOnClassesThat().resideInAnyPackage(
          "org.edl.am..", "org.edl.client..", "org.edl.cli..", "org.edl.cluster..", "org.edl.bench..",
          "org.edl.devtools..")
      .because("a worker container runs edl-worker alone");

  @ArchTest
  static final ArchRule jobApiImportsNoWorkerInternals = noClasses()
      .that().resideInAPackage("org.edl.job..")
      .should().dependOnClassesThat().resideInAPackage("org.edl.worker..")
      .because("the job API is what edl-am sees of the worker: it must not drag the runtime in with it");

  @ArchTest
  static final ArchRule jobSpecSpeaksNoProtocol = noClasses()
      .that().resideInAPackage("org.edl.job")
      .should().dependOnClassesThat().resideInAnyPackage("org.edl.thrift..", "org.apache.thrift..")
      .because("the job's specification has enums of its own; org.edl.job.rpc converts them for the wire");

  @ArchTest
  static final ArchRule fleetDecisionsRefuseWithoutThrift = noClasses()
      .that().haveSimpleNameStartingWith("Fleet").or().haveSimpleNameStartingWith("WorkerFleet")
      .or().haveSimpleName("ElasticRequests").or().haveSimpleName("ExitRules").or().haveSimpleName("ProfileRun")
      .or().haveSimpleName("PreemptionResponse")
      .should().dependOnClassesThat().haveFullyQualifiedName("org.edl.thrift.EdlError")
      .because("the fleet refuses with its own FleetRefusal; JobControlService turns it into the protocol's error");

  @ArchTest
  static final ArchRule leaderDecisionsKnowNeitherThriftNorZooKeeper = noClasses()
      .that().resideInAPackage("org.edl.worker.coord")
      .should().dependOnClassesThat().resideInAnyPackage(
          "org.apache.thrift..", "org.edl.thrift..", "org.apache.curator..", "org.apache.zookeeper..")
      .because("the leader's decisions are pure; coord.rpc (Thrift) and coord.zk (ZooKeeper) carry them out");

  /**
   * The leader's state has one owner, the thread of its LeaderLoop: no lock anywhere in coord
   * (ArchUnit sees no synchronized block, so the sources are read). CoordinatorClient is the one
   * exception: a member's one Thrift connection carries one call at a time.
   */
  @ArchTest
  static void theLeaderTakesNoLock(JavaClasses classes) throws java.io.IOException {
    java.nio.file.Path coord = java.nio.file.Path.of("..", "container-worker", "src", "main", "java", "org", "edl",
        "worker", "coord");
    Set<String> locking = new TreeSet<>();
    try (var files = java.nio.file.Files.walk(coord)) {
      for (java.nio.file.Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        String text = java.nio.file.Files.readString(f);
        if (!f.endsWith("CoordinatorClient.java")
            && (text.contains("synchronized") || text.contains("java.util.concurrent.locks"))) {
          locking.add(coord.relativize(f).toString());
        }
      }
    }
    assertEquals(Set.of(), locking, "classes in coord that lock");
    assertEquals(true, classes.contain("org.edl.worker.coord.LeaderLoop"), "the sources read are this build's");
  }

  @ArchTest
  static final ArchRule policyCoreAndSimulatorAreHadoopFree = noClasses()
      .that().resideInAnyPackage("org.edl.scheduler.core..", "org.edl.scheduler.sim..")
      .should().dependOnClassesThat().resideInAnyPackage(
          "org.apache.hadoop..", "org.apache.thrift..", "org.edl.thrift..", "org.edl.worker..", "org.edl.job..")
      .because("the policy core and the simulator are pure Java; only org.edl.scheduler.rm sees the RM");

  /**
   * One policy code, two runners: the simulator (org.edl.scheduler.sim) and the ResourceManager
   * plugin (org.edl.scheduler.rm) both build the Tiresias policy of org.edl.scheduler.core.policy
   * and ask it to decide; neither has a copy of its rules.
   */
  @ArchTest
  static void theSimulatorAndTheResourceManagerDecideWithTheSameTiresiasPolicy(JavaClasses classes) {
    String policy = "org.edl.scheduler.core.policy.TiresiasPolicy";
    Set<String> building = new TreeSet<>();
    classes.get(policy).getConstructorCallsToSelf().forEach(c -> building.add(c.getOriginOwner().getPackageName()));
    Set<String> deciding = new TreeSet<>();
    for (String owner : new String[] {policy, "org.edl.scheduler.core.policy.ClusterPolicy"}) {
      classes.get(owner).getMethodCallsToSelf().stream()
          .filter(c -> c.getName().equals("schedule"))
          .forEach(c -> deciding.add(c.getOriginOwner().getPackageName()));
    }
    Set<String> runners = Set.of("org.edl.scheduler.rm", "org.edl.scheduler.sim");
    assertEquals(runners, building, "packages that build " + policy);
    assertEquals(runners, deciding, "packages that ask a cluster policy to schedule");
  }

  /**
   * No package cycles. Maven already keeps the modules acyclic and no package is split between
   * two modules' main classes, so one check over all of them is the check within each module.
   */
  @ArchTest
  static final ArchRule packagesAreFreeOfCycles = slices().matching("org.edl.(**)").should().beFreeOfCycles();

  private static final DescribedPredicate<JavaClass> DEV_TOOLS_OR_TEST_LIBRARIES =
      DescribedPredicate.describe("are in " + String.join(", ", DEV_TOOLS)
              + ", JUnit, Mockito, curator-test, MiniYARNCluster or MiniDFSCluster",
          c -> resideInAnyPackage(DEV_TOOLS).test(c)
              || resideInAnyPackage("org.junit..", "org.mockito..", "org.apache.curator.test..")
                  .test(c)
              || isOrIsIn(c, "org.apache.hadoop.yarn.server.MiniYARNCluster")
              || isOrIsIn(c, "org.apache.hadoop.hdfs.MiniDFSCluster"));

  /**
   * The yarn jar leaves out {@link #DEV_TOOLS} and holds none of the test libraries (the mini
   * clusters, curator-test, JUnit, Mockito), so nothing that goes into it may need them.
   */
  @ArchTest
  static final ArchRule clusterCodeNeedsNoDevToolsOrTestLibraries = noClasses()
      .that().resideOutsideOfPackages(DEV_TOOLS)
      .should().dependOnClassesThat(DEV_TOOLS_OR_TEST_LIBRARIES)
      .because("the yarn jar (target/dist/edl-am-<version>.jar) holds only what runs on a cluster");

  private static boolean isOrIsIn(JavaClass c, String name) {
    return topLevel(c).equals(name);
  }

  /** The top-level class's name (by name: classes outside org.edl are not imported in full). */
  private static String topLevel(JavaClass c) {
    String name = c.getName();
    int nested = name.indexOf('$');
    return nested < 0 ? name : name.substring(0, nested);
  }
}
