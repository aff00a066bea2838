package org.edl.cluster.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.util.Shell;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.api.records.ResourceTypeInfo;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.nodemanager.Context;
import org.apache.hadoop.yarn.server.nodemanager.DefaultContainerExecutor;
import org.apache.hadoop.yarn.server.nodemanager.containermanager.resourceplugin.ResourcePlugin;
import org.apache.hadoop.yarn.server.nodemanager.containermanager.resourceplugin.ResourcePluginManager;
import org.apache.hadoop.yarn.server.nodemanager.containermanager.resourceplugin.gpu.GpuDevice;
import org.apache.hadoop.yarn.server.nodemanager.containermanager.resourceplugin.gpu.GpuDiscoverer;
import org.apache.hadoop.yarn.server.nodemanager.containermanager.resourceplugin.gpu.GpuNodeResourceUpdateHandler;
import org.apache.hadoop.yarn.server.nodemanager.containermanager.resourceplugin.gpu.NvidiaBinaryHelper;
import org.apache.hadoop.yarn.server.nodemanager.webapp.dao.gpu.GpuDeviceInformation;
import org.apache.hadoop.yarn.server.nodemanager.webapp.dao.gpu.GpuDeviceInformationParser;
import org.apache.hadoop.yarn.server.nodemanager.webapp.dao.gpu.NMGpuResourceInfo;
import org.apache.hadoop.yarn.server.nodemanager.webapp.dao.gpu.PerGpuDeviceInformation;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.util.resource.DominantResourceCalculator;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stand-in {@code nvidia-smi} the multi-host cluster's NodeManagers discover their GPUs from,
 * read by Hadoop's own code: the parser of {@code nvidia-smi -x -q}, the discoverer, and the GPU
 * resource plugin as the NodeManager initialises it under the DefaultContainerExecutor.
 */
class StandInNvidiaSmiTest {
  private static final String SCRIPT = "/org/edl/cluster/hosts/nvidia-smi";

  @TempDir
  Path host;
  private Path script;

  @BeforeAll
  static void gpuIsAKnownResourceType() {
    // What the NodeManager has from resource-types.xml: without yarn.io/gpu the plugin's count is refused.
    ResourceUtils.reinitializeResources(List.of(
        ResourceTypeInfo.newInstance(ResourceInformation.MEMORY_URI, "Mi"),
        ResourceTypeInfo.newInstance(ResourceInformation.VCORES_URI),
        ResourceTypeInfo.newInstance(ResourceInformation.GPU_URI)));
  }

  @AfterAll
  static void forgetTheResourceTypes() {
    ResourceUtils.resetResourceTypes();
  }

  /** As the multi-host cluster lays out a host: the script, executable, and the count beside it. */
  @BeforeEach
  void writeTheScriptIntoTheHostsDirectory() throws IOException {
    script = host.resolve("nvidia-smi");
    try (InputStream in = StandInNvidiaSmiTest.class.getResourceAsStream(SCRIPT)) {
      assertNotNull(in, SCRIPT + " on the class path");
      Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
    }
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(host.resolve("gpus"), "4\n");
  }

  @Test
  void hadoopsParserReadsFourGpusWithMinorNumbersZeroToThree() throws Exception {
    // Exactly how NvidiaBinaryHelper runs it: Shell.execCommand, arguments -x -q, a 10 s limit.
    String xml = Shell.execCommand(new HashMap<>(), new String[] {script.toString(), "-x", "-q"}, 10_000);

    GpuDeviceInformation info = new GpuDeviceInformationParser().parseXml(xml);

    List<PerGpuDeviceInformation> gpus = info.getGpus();
    assertNotNull(gpus, "no <gpu> element read from:\n" + xml);
    assertEquals(4, gpus.size(), xml);
    assertEquals(List.of(0, 1, 2, 3), gpus.stream().map(PerGpuDeviceInformation::getMinorNumber).toList(), xml);
    assertNotEquals("N/A", info.getDriverVersion(), "driver_version read");
    assertEquals(4, gpus.stream().map(PerGpuDeviceInformation::getUuid).distinct().count(), "distinct uuids");
    for (PerGpuDeviceInformation gpu : gpus) {
      assertTrue(gpu.getUuid().startsWith("GPU-"), gpu.getUuid());
      assertTrue(gpu.getProductName().contains("stand-in"), gpu.getProductName());
      assertEquals(16384L, gpu.getGpuMemoryUsage().getTotalMemoryMiB(), "fb_memory_usage used + free");
      // The NodeManager's resource monitor sums these every few seconds; a missing one is an NPE there.
      assertEquals(0f, gpu.getGpuUtilizations().getOverallGpuUtilization());
      assertEquals(30f, gpu.getTemperature().getCurrentGpuTemp());
    }
  }

  @Test
  void theDiscovererOffersFourGpusIndexedAndNumberedZeroToThree() throws Exception {
    GpuDiscoverer discoverer = new GpuDiscoverer();
    discoverer.initialize(nodeManagerConf(), new NvidiaBinaryHelper());

    List<GpuDevice> usable = discoverer.getGpusUsableByYarn();

    assertEquals(List.of(0, 1, 2, 3), usable.stream().map(GpuDevice::getIndex).toList());
    assertEquals(List.of(0, 1, 2, 3), usable.stream().map(GpuDevice::getMinorNumber).toList());
  }

  @Test
  void theGpuPluginReportsFourGpusUnderTheDefaultContainerExecutor() throws Exception {
    GpuNodeResourceUpdateHandler gpus = gpuPlugin(nodeManagerConf());
    // What NodeStatusUpdaterImpl does to the resource it registers with the ResourceManager.
    Resource node = Resource.newInstance(8192, 4);

    gpus.updateConfiguredResource(node);

    assertEquals(4, node.getResourceValue(ResourceInformation.GPU_URI));
    // What NodeResourceMonitorImpl asks every yarn.nodemanager.resource-monitor.interval-ms.
    assertEquals(0f, gpus.getTotalNodeGpuUtilization());
  }

  /**
   * A real NodeManager (in a MiniYARNCluster, a few seconds) under the DefaultContainerExecutor:
   * it registers the stand-in's GPUs with the ResourceManager, but its GPU allocator is never
   * bootstrapped (only the LinuxContainerExecutor does that), so YARN assigns no device to any
   * container there. The docs say so; if a Hadoop upgrade changes it, they must change too.
   */
  @Test
  void aNodeManagerUnderTheDefaultContainerExecutorRegistersFourGpusButAssignsNone() throws Exception {
    YarnConfiguration conf = nodeManagerConf();
    conf.set(YarnConfiguration.RESOURCE_TYPES, ResourceInformation.GPU_URI);
    conf.set("yarn.scheduler.capacity.resource-calculator", DominantResourceCalculator.class.getName());
    ResourceUtils.resetResourceTypes(conf);
    ResourceUtils.resetNodeResources();

    try (MiniYARNCluster yarn = new MiniYARNCluster("stand-in-gpus", 1, 1, 1)) {
      yarn.init(conf);
      yarn.start();
      assertTrue(yarn.waitForNodeManagersToConnect(60_000), "the NodeManager registered");

      List<RMNode> nodes = List.copyOf(yarn.getResourceManager().getRMContext().getRMNodes().values());
      assertEquals(1, nodes.size());
      assertEquals(4, nodes.get(0).getTotalCapability().getResourceValue(ResourceInformation.GPU_URI),
          "yarn.io/gpu the ResourceManager has from the NodeManager: " + nodes.get(0).getTotalCapability());

      NMGpuResourceInfo onTheNode = (NMGpuResourceInfo) yarn.getNodeManager(0).getNMContext()
          .getResourcePluginManager().getNameToPlugins().get(ResourceInformation.GPU_URI).getNMResourceInfo();
      assertEquals(4, onTheNode.getGpuDeviceInformation().getGpus().size(), "discovered on the node");
      assertEquals(List.of(), onTheNode.getTotalGpuDevices(),
          "devices YARN's GPU allocator hands out: none without the LinuxContainerExecutor");
    }
  }

  @Test
  void theCountCanComeFromTheEnvironmentInstead() throws Exception {
    Files.delete(host.resolve("gpus"));

    String xml = Shell.execCommand(Map.of("EDL_STAND_IN_GPUS", "2"), new String[] {script.toString(), "-q", "-x"}, 10_000);

    assertEquals(List.of(0, 1), new GpuDeviceInformationParser().parseXml(xml).getGpus().stream()
        .map(PerGpuDeviceInformation::getMinorNumber).toList());
  }

  @Test
  void withoutACountTheNodeManagerRefusesToStartRatherThanOfferNoGpus() throws Exception {
    Files.delete(host.resolve("gpus"));
    Shell.ExitCodeException failed = assertThrows(Shell.ExitCodeException.class,
        () -> Shell.execCommand(new HashMap<>(), new String[] {script.toString(), "-x", "-q"}, 10_000));
    assertTrue(failed.getMessage().contains("EDL_STAND_IN_GPUS"), failed.getMessage());

    // The plugin only warns when discovery fails; the NodeManager fails when it asks for the count.
    GpuNodeResourceUpdateHandler gpus = gpuPlugin(nodeManagerConf());
    YarnException refused = assertThrows(YarnException.class,
        () -> gpus.updateConfiguredResource(Resource.newInstance(8192, 4)));
    assertTrue(refused.getMessage().contains("automatically discovering GPU information failed"), refused.getMessage());
  }

  @Test
  void anythingButTheDiscoveryArgumentsOrAListIsRefused() {
    assertThrows(Shell.ExitCodeException.class,
        () -> Shell.execCommand(new HashMap<>(), new String[] {script.toString(), "-q"}, 10_000));
    assertThrows(Shell.ExitCodeException.class,
        () -> Shell.execCommand(new HashMap<>(), new String[] {script.toString(), "--query-gpu=index"}, 10_000));
  }

  @Test
  void theListHasOneLinePerGpu() throws Exception {
    String list = Shell.execCommand(new HashMap<>(), new String[] {script.toString(), "-L"}, 10_000);

    List<String> lines = list.strip().lines().toList();
    assertEquals(4, lines.size(), list);
    assertTrue(lines.get(3).startsWith("GPU 3: "), list);
    assertFalse(list.contains("<"), list);
  }

  /** The keys the multi-host cluster's NodeManagers are given, the script's directory as the path. */
  private YarnConfiguration nodeManagerConf() {
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(YarnConfiguration.NM_RESOURCE_PLUGINS, ResourceInformation.GPU_URI);
    conf.set(YarnConfiguration.NM_GPU_ALLOWED_DEVICES, YarnConfiguration.AUTOMATICALLY_DISCOVER_GPU_DEVICES);
    conf.set(YarnConfiguration.NM_GPU_PATH_TO_EXEC, host.toString());
    conf.set(YarnConfiguration.NM_CONTAINER_EXECUTOR, DefaultContainerExecutor.class.getName());
    return conf;
  }

  /** The GPU plugin as NodeManager.serviceInit makes it: through Hadoop's ResourcePluginManager. */
  private static GpuNodeResourceUpdateHandler gpuPlugin(YarnConfiguration conf) throws Exception {
    Context context = mock(Context.class);
    when(context.getConf()).thenReturn(conf);
    ResourcePluginManager plugins = new ResourcePluginManager();
    plugins.initialize(context);
    ResourcePlugin gpu = plugins.getNameToPlugins().get(ResourceInformation.GPU_URI);
    assertNotNull(gpu, "the GPU plugin is configured: " + plugins.getNameToPlugins());
    return (GpuNodeResourceUpdateHandler) gpu.getNodeResourceHandlerInstance();
  }
}
