package dev.ddp4j.collectives.topology;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * NVLink counts from NVML ({@code libnvidia-ml.so.1}) through JNA: for each active link of a GPU,
 * the PCI bus id at its other end (a GPU, or an NVSwitch).
 */
final class Nvml {

  /** The NVML calls used; names and signatures as in nvml.h. */
  interface Lib extends Library {
    int nvmlInit_v2();

    int nvmlShutdown();

    int nvmlDeviceGetHandleByPciBusId_v2(String pciBusId, PointerByReference device);

    int nvmlDeviceGetNvLinkState(Pointer device, int link, IntByReference isActive);

    int nvmlDeviceGetNvLinkRemotePciInfo_v2(Pointer device, int link, Pointer pci);
  }

  /** Links a GPU can have (NVML_NVLINK_MAX_LINKS is 18 on Hopper). */
  static final int MAX_LINKS = 18;

  /**
   * nvmlPciInfo_t: char busIdLegacy[16]; unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
   * char busId[32].
   */
  private static final int PCI_INFO_BYTES = 68;

  private static final int BUS_ID_OFFSET = 36;

  private Nvml() {}

  /**
   * For each GPU bus id, the active NVLinks per remote bus id (sysfs spelling), or empty with the
   * reason NVML is not usable.
   */
  static Optional<Map<String, Map<String, Integer>>> nvlinks(
      Iterable<String> gpuBusIds, StringBuilder whyNot) {
    Lib lib = null;
    // Driver-only machines have libnvidia-ml.so.1 but no unversioned development symlink.
    for (String name : new String[] {"libnvidia-ml.so.1", "nvidia-ml"}) {
      try {
        lib = Native.load(name, Lib.class);
        break;
      } catch (UnsatisfiedLinkError e) {
        whyNot.setLength(0);
        whyNot.append("libnvidia-ml did not load: ").append(e.getMessage());
      }
    }
    if (lib == null) {
      return Optional.empty();
    }
    whyNot.setLength(0);
    int rc = lib.nvmlInit_v2();
    if (rc != 0) {
      whyNot.append("nvmlInit failed with NVML error ").append(rc);
      return Optional.empty();
    }
    try {
      Map<String, Map<String, Integer>> out = new TreeMap<>();
      for (String busId : gpuBusIds) {
        PointerByReference handle = new PointerByReference();
        if (lib.nvmlDeviceGetHandleByPciBusId_v2(busId, handle) != 0) {
          whyNot.append("NVML does not know GPU ").append(busId);
          return Optional.empty();
        }
        Map<String, Integer> remote = new TreeMap<>();
        Memory pci = new Memory(PCI_INFO_BYTES + 60);
        for (int link = 0; link < MAX_LINKS; link++) {
          IntByReference active = new IntByReference();
          if (lib.nvmlDeviceGetNvLinkState(handle.getValue(), link, active) != 0
              || active.getValue() == 0) {
            continue;
          }
          pci.clear();
          if (lib.nvmlDeviceGetNvLinkRemotePciInfo_v2(handle.getValue(), link, pci) == 0) {
            String remoteId = SysfsPci.normalizeBusId(pci.getString(BUS_ID_OFFSET));
            remote.merge(remoteId, 1, Integer::sum);
          }
        }
        out.put(SysfsPci.normalizeBusId(busId), remote);
      }
      return Optional.of(out);
    } finally {
      lib.nvmlShutdown();
    }
  }
}
