package dev.ddp4j.collectives.gpu;

import dev.ddp4j.ConfigException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.JCudaDriver;

/**
 * The GPU architectures a CUDA fat binary serves: the {@code sm_XY} it holds machine code (SASS)
 * for and the {@code compute_XY} it holds PTX for, read from the container's entry headers without
 * the CUDA toolkit. The layout, little-endian, as nvcc {@code -fatbin} writes it (CUDA 11.8 to
 * 13.0):
 *
 * <pre>
 * container  0: u32 magic 0xBA55ED50 | u16 version 1 | u16 header bytes (16) | u64 entry bytes
 * entry      0: u16 kind (1 PTX, 2 ELF) | u16 version | u32 entry header bytes (64 or more)
 *            8: u64 payload bytes, padded (the next entry starts after header + this)
 *           16: u32 compressed payload bytes | u32 | u32 PTX ISA / ELF version | u32 arch (70: sm_70)
 *           32: u32, u32 (name) | u64 flags (0x2000: payload compressed) | u64
 *           56: u64 payload bytes once decompressed | ... up to the entry header bytes | payload
 * </pre>
 *
 * Containers may follow each other; each one's entries end where its header says. Compatibility
 * (CUDA's rules): SASS for {@code sm_XY} runs on a GPU of compute capability X.Z for every Z >= Y;
 * PTX for {@code compute_XY} is JIT-compiled by the driver for any compute capability >= X.Y.
 */
public record FatBinaryArchitectures(Set<Integer> machineCode, Set<Integer> ptx) {

  static final int MAGIC = 0xBA55ED50;
  public static final int KIND_PTX = 1;
  public static final int KIND_ELF = 2;
  private static final int ENTRY_HEADER_BYTES = 64;
  private static final long FLAG_COMPRESSED = 0x2000;

  /** Copies both sets, sorted (so that they iterate and print in ascending order). */
  public FatBinaryArchitectures {
    machineCode = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(machineCode));
    ptx = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(ptx));
  }

  /**
   * One entry's header: {@code kind} 1 (PTX) or 2 (ELF, machine code), its architecture ({@code 90}
   * for sm_90 / compute_90), and where its payload lies in the image; {@code uncompressedBytes} is
   * its size once decompressed where {@code compressed} (nvcc's {@code -compress-all}, an LZ4
   * block).
   */
  public record Entry(
      int kind,
      int arch,
      boolean compressed,
      int payloadOffset,
      int payloadBytes,
      long uncompressedBytes) {}

  /**
   * The entries of every container in {@code image}, in order.
   *
   * @throws IllegalArgumentException if {@code image} is not a fat binary or is truncated
   */
  public static List<Entry> entries(byte[] image) {
    return entries(ByteBuffer.wrap(image));
  }

  /**
   * The entries of every container in {@code image}'s remaining bytes (a mapped {@code .nv_fatbin}
   * section, say), in order; offsets count from its position, which is left as it was.
   *
   * @throws IllegalArgumentException if {@code image} is not a fat binary or is truncated
   */
  public static List<Entry> entries(ByteBuffer image) {
    ByteBuffer b = image.slice().order(ByteOrder.LITTLE_ENDIAN);
    int length = b.limit();
    List<Entry> out = new ArrayList<>();
    int at = 0;
    while (at < length) {
      if (length - at < 16 || b.getInt(at) != MAGIC) {
        throw new IllegalArgumentException(
            String.format(
                "not a CUDA fat binary: no container magic 0x%08X at byte %d of %d",
                MAGIC, at, length));
      }
      int headerBytes = b.getShort(at + 6) & 0xFFFF;
      long end = at + headerBytes + b.getLong(at + 8);
      if (end > length) {
        throw new IllegalArgumentException(
            "truncated CUDA fat binary: a container ends at byte " + end + " of " + length);
      }
      long entry = at + headerBytes;
      while (entry < end) {
        int e = (int) entry;
        int entryHeaderBytes = b.getInt(e + 4);
        long padded = b.getLong(e + 8);
        if (end - entry < ENTRY_HEADER_BYTES
            || entryHeaderBytes < ENTRY_HEADER_BYTES
            || entry + entryHeaderBytes + padded > end) {
          throw new IllegalArgumentException("corrupt CUDA fat binary: entry header at byte " + e);
        }
        boolean compressed = (b.getLong(e + 40) & FLAG_COMPRESSED) != 0;
        out.add(
            new Entry(
                b.getShort(e) & 0xFFFF,
                b.getInt(e + 28),
                compressed,
                e + entryHeaderBytes,
                compressed ? b.getInt(e + 16) : (int) padded,
                compressed ? b.getLong(e + 56) : padded));
        entry += entryHeaderBytes + padded;
      }
      at = (int) end;
    }
    return out;
  }

  /**
   * The architectures of every entry of every container in {@code image}.
   *
   * @throws IllegalArgumentException if {@code image} is not a fat binary or is truncated
   */
  public static FatBinaryArchitectures parse(byte[] image) {
    return parse(ByteBuffer.wrap(image));
  }

  /**
   * The architectures of every entry of every container in {@code image}'s remaining bytes; its
   * position is left as it was.
   *
   * @throws IllegalArgumentException if {@code image} is not a fat binary or is truncated
   */
  public static FatBinaryArchitectures parse(ByteBuffer image) {
    SortedSet<Integer> sass = new TreeSet<>();
    SortedSet<Integer> ptx = new TreeSet<>();
    for (Entry e : entries(image)) {
      if (e.kind() == KIND_PTX) {
        ptx.add(e.arch());
      } else if (e.kind() == KIND_ELF) {
        sass.add(e.arch());
      }
    }
    return new FatBinaryArchitectures(sass, ptx);
  }

  /** Whether a GPU of compute capability {@code major.minor} can run this binary's kernels. */
  public boolean runsOn(int major, int minor) {
    int cc = 10 * major + minor;
    return machineCode.stream().anyMatch(a -> a / 10 == major && a % 10 <= minor)
        || ptx.stream().anyMatch(a -> a <= cc);
  }

  /**
   * {@code machine code for sm_70, sm_80 and PTX for compute_90 (GPUs of compute capability 7.0 and
   * newer)}; the range is left out where the architectures leave gaps.
   */
  public String describe() {
    String s =
        "machine code for "
            + (machineCode.isEmpty() ? "no GPU" : names("sm_", List.copyOf(machineCode)))
            + (ptx.isEmpty()
                ? " and no PTX"
                : " and PTX for " + names("compute_", List.copyOf(ptx)));
    Integer lowest = null;
    for (int cc = 10; cc < 200; cc++) {
      boolean runs = runsOn(cc / 10, cc % 10);
      if (runs && lowest == null) {
        lowest = cc;
      } else if (!runs && lowest != null) {
        return s; // a gap: no single range to name
      }
    }
    return lowest == null
        ? s
        : s + " (GPUs of compute capability " + lowest / 10 + "." + lowest % 10 + " and newer)";
  }

  /**
   * Throws unless the kernels in {@code fatbin} run on GPU {@code ordinal} ({@code name}) of
   * compute capability {@code major.minor}; the one-line message names the GPU, its compute
   * capability and what the binary serves.
   */
  public static void requireRunsOn(int ordinal, String name, int major, int minor, byte[] fatbin) {
    FatBinaryArchitectures archs = parse(fatbin);
    if (!archs.runsOn(major, minor)) {
      throw new ConfigException(
          String.format(
              "GPU %d (%s, compute capability %d.%d) is not supported by ddp4j's kernels: they hold"
                  + " %s; set DDP4J_BACKEND=cpu on this machine",
              ordinal, name, major, minor, archs.describe()));
    }
  }

  /** {@link #requireRunsOn} for the GPU of the current context (where the module will load). */
  static void requireRunsOnCurrentGpu(byte[] fatbin) {
    CUdevice dev = new CUdevice();
    Cu.check(JCudaDriver.cuCtxGetDevice(dev), "cuCtxGetDevice");
    int major = attribute(dev, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    int minor = attribute(dev, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    if (parse(fatbin).runsOn(major, minor)) {
      return;
    }
    byte[] name = new byte[256];
    Cu.check(JCudaDriver.cuDeviceGetName(name, name.length, dev), "cuDeviceGetName");
    int n = 0;
    while (n < name.length && name[n] != 0) {
      n++;
    }
    int[] count = new int[1];
    Cu.check(JCudaDriver.cuDeviceGetCount(count), "cuDeviceGetCount");
    int ordinal = 0;
    for (CUdevice d = new CUdevice(); ordinal < count[0]; ordinal++) {
      Cu.check(JCudaDriver.cuDeviceGet(d, ordinal), "cuDeviceGet " + ordinal);
      if (d.equals(dev)) {
        break;
      }
    }
    requireRunsOn(
        ordinal,
        new String(name, 0, n, java.nio.charset.StandardCharsets.UTF_8),
        major,
        minor,
        fatbin);
  }

  private static int attribute(CUdevice dev, int attribute) {
    int[] v = new int[1];
    Cu.check(
        JCudaDriver.cuDeviceGetAttribute(v, attribute, dev), "cuDeviceGetAttribute " + attribute);
    return v[0];
  }

  private static String names(String prefix, List<Integer> archs) {
    return archs.stream().map(a -> prefix + a).collect(Collectors.joining(", "));
  }
}
