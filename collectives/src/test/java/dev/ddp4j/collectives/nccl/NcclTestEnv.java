package dev.ddp4j.collectives.nccl;

import com.sun.jna.NativeLibrary;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** The environment of child processes that must find no NCCL but what a test puts there. */
final class NcclTestEnv {

  private NcclTestEnv() {}

  /**
   * Variables pointing every Python location the locator reads at {@code empty}, and
   * DDP4J_NCCL_LIBRARY blank (= unset).
   */
  static Map<String, String> isolated(Path empty) {
    Map<String, String> env = new HashMap<>();
    for (String var : new String[] {"HOME", "VIRTUAL_ENV", "CONDA_PREFIX", "PYENV_ROOT", "PATH"}) {
      env.put(var, empty.toString());
    }
    env.put("PYTHONPATH", "");
    env.put(NcclLocator.LIBRARY_VAR, "");
    return env;
  }

  /** Where this machine has an NCCL the isolated environment still finds; empty when none. */
  static Optional<String> machineNccl(Path empty) {
    try {
      NativeLibrary.getInstance(NcclLocator.SONAME);
      return Optional.of(NcclLocator.SONAME + " on the dynamic loader's path");
    } catch (UnsatisfiedLinkError e) {
      // none: the usual CI machine
    }
    return NcclLocator.search(dev.ddp4j.spi.Settings.of(isolated(empty))).candidates().stream()
        .filter(c -> !c.library().equals(NcclLocator.SONAME))
        .map(NcclLocator.Candidate::library)
        .findFirst();
  }
}
