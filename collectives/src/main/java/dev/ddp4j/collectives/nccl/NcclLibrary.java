package dev.ddp4j.collectives.nccl;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import dev.ddp4j.ConfigException;
import dev.ddp4j.spi.Settings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The libnccl.so.2 this process uses: found by {@link NcclLocator}, its version checked against
 * {@link NcclVersion#MINIMUM}, bound once per process (JNA's direct mapping binds a class once).
 * When none is usable, the error lists every place looked at and the fix, on one line.
 */
public final class NcclLibrary {

  private static final Object LOCK = new Object();
  private static NcclLibrary loaded;
  private static ConfigException failure;

  private final String path;
  private final NcclVersion version;
  private final NcclApi api;

  private NcclLibrary(String path, NcclVersion version, NcclApi api) {
    this.path = path;
    this.version = version;
    this.api = api;
  }

  /**
   * The library, loaded on the first call.
   *
   * @throws ConfigException naming where it looked and how to fix it, on every call
   */
  public static NcclLibrary load() {
    synchronized (LOCK) {
      if (loaded == null && failure == null) {
        try {
          loaded = find(Settings.process());
        } catch (ConfigException e) {
          failure = e;
        }
      }
      if (failure != null) {
        throw new ConfigException(failure.getMessage());
      }
      return loaded;
    }
  }

  /** Empty when {@link #load()} succeeds, else its message. */
  public static Optional<String> unavailableReason() {
    try {
      load();
      return Optional.empty();
    } catch (ConfigException e) {
      return Optional.of(e.getMessage());
    }
  }

  private static NcclLibrary find(Settings env) {
    NcclLocator.Search search = NcclLocator.search(env);
    List<String> problems = new ArrayList<>();
    for (NcclLocator.Candidate c : search.candidates()) {
      NativeLibrary lib;
      try {
        lib = NativeLibrary.getInstance(c.library());
      } catch (UnsatisfiedLinkError e) {
        problems.add(notLoaded(c, e));
        continue;
      }
      NcclApi api;
      int code;
      try {
        api = Native.load(c.library(), NcclApi.class);
        IntByReference v = new IntByReference();
        int rc = api.ncclGetVersion(v);
        if (rc != NcclTypes.SUCCESS) {
          problems.add(c.library() + " (" + c.origin() + "): ncclGetVersion returned " + rc);
          continue;
        }
        code = v.getValue();
      } catch (UnsatisfiedLinkError e) {
        problems.add(c.library() + " (" + c.origin() + ") is not NCCL: " + firstLine(e));
        continue;
      }
      NcclVersion version = NcclVersion.decode(code);
      String where = resolvedPath(c.library());
      if (version.compareTo(NcclVersion.MINIMUM) < 0) {
        problems.add(
            "NCCL "
                + version
                + " at "
                + where
                + " ("
                + c.origin()
                + ") is too old (the nccl backend needs "
                + NcclVersion.MINIMUM
                + " or newer: non-blocking communicators, so that no wait hangs)");
        continue;
      }
      try {
        NcclDirect.bind(lib);
      } catch (UnsatisfiedLinkError e) {
        problems.add("NCCL " + version + " at " + where + " lacks a collective: " + firstLine(e));
        continue;
      }
      return new NcclLibrary(where, version, api);
    }
    throw new ConfigException(unavailableMessage(env, search, problems));
  }

  private static String notLoaded(NcclLocator.Candidate c, UnsatisfiedLinkError e) {
    if (c.origin().equals(NcclLocator.LIBRARY_VAR)) {
      return NcclLocator.LIBRARY_VAR + "=" + c.library() + " did not load: " + firstLine(e);
    }
    String ld = Settings.process().text("LD_LIBRARY_PATH", "<unset>");
    return NcclLocator.SONAME
        + " is not on the dynamic loader's path (LD_LIBRARY_PATH="
        + ld
        + ", /etc/ld.so.cache)";
  }

  static String unavailableMessage(Settings env, NcclLocator.Search search, List<String> problems) {
    StringBuilder sb = new StringBuilder("no usable NCCL library: ");
    boolean explicit = env.isSet(NcclLocator.LIBRARY_VAR);
    if (!explicit) {
      sb.append(NcclLocator.LIBRARY_VAR).append(" is unset; ");
    }
    sb.append(String.join("; ", problems));
    if (!explicit) {
      boolean wheelTried =
          search.candidates().stream().anyMatch(c -> c.origin().startsWith("NVIDIA"));
      if (!wheelTried) {
        sb.append("; no nvidia/nccl/lib/")
            .append(NcclLocator.SONAME)
            .append(" in the Python package folders ")
            .append(search.pythonFolders().isEmpty() ? "(none found)" : search.pythonFolders());
      }
    }
    sb.append(" (fix: install NCCL ")
        .append(NcclVersion.MINIMUM.major())
        .append('.')
        .append(NcclVersion.MINIMUM.minor())
        .append(" or newer, e.g. apt install libnccl2 or pip install nvidia-nccl-cu12, or set ")
        .append(NcclLocator.LIBRARY_VAR)
        .append("=/path/to/")
        .append(NcclLocator.SONAME)
        .append("; or use DDP4J_BACKEND=cuda)");
    return sb.toString();
  }

  private static String firstLine(Throwable e) {
    String m = String.valueOf(e.getMessage());
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  /**
   * The file a library name resolved to: itself when it is a path, else the mapping of this process
   * that holds it (the dynamic loader does not say which file it chose).
   */
  private static String resolvedPath(String library) {
    if (library.contains("/")) {
      try {
        return Path.of(library).toRealPath().toString();
      } catch (IOException e) {
        return library;
      }
    }
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
        int slash = line.indexOf('/');
        if (slash >= 0 && line.substring(slash).contains("/libnccl.so")) {
          return line.substring(slash).trim();
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux's procfs: the name is all we know.
    }
    return library;
  }

  /** The library file in use. */
  public String path() {
    return path;
  }

  /** The library's version as it reports it. */
  public NcclVersion version() {
    return version;
  }

  NcclApi api() {
    return api;
  }

  /** {@code ncclGetUniqueId}: a new id, made once by rank 0 for the whole group. */
  byte[] uniqueId() {
    NcclUniqueId id = new NcclUniqueId();
    int rc = api.ncclGetUniqueId(id);
    if (rc != NcclTypes.SUCCESS) {
      throw new NcclException("ncclGetUniqueId", rc, errorString(rc), null);
    }
    return id.bytes();
  }

  /** NCCL's words for {@code result}. */
  String errorString(int result) {
    try {
      return api.ncclGetErrorString(result);
    } catch (RuntimeException | UnsatisfiedLinkError e) {
      return NcclTypes.resultName(result);
    }
  }

  /** NCCL's message about the last error of {@code comm} (empty when it has none). */
  String lastError(Pointer comm) {
    try {
      String s = api.ncclGetLastError(comm);
      return s == null ? "" : s.trim();
    } catch (RuntimeException | UnsatisfiedLinkError e) {
      return "";
    }
  }
}
