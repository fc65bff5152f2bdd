package dev.ddp4j.collectives.transport;

import static dev.ddp4j.collectives.reduce.UnsafeMemory.UNSAFE;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Linux cross-memory attach through JNA: {@code process_vm_readv} copies bytes out of another
 * process's memory in one kernel copy, the way OpenMPI's shared-memory transport moves large
 * messages. The kernel allows it when the caller may ptrace the target: same uid, and under Yama
 * {@code ptrace_scope=1} only if the target named the caller (or anyone) with {@code
 * prctl(PR_SET_PTRACER)}; containers' seccomp profiles may refuse it outright. One instance per
 * thread (it owns its iovec memory).
 */
public final class CrossMemory implements AutoCloseable {

  private static final int PR_SET_PTRACER = 0x59616d61;
  private static final long PR_SET_PTRACER_ANY = -1L;
  static final int EPERM = 1;
  static final int ESRCH = 3;
  static final int EFAULT = 14;
  static final int ENOSYS = 38;

  /** Null when the binding loaded, else why not (a reason to fall back). */
  private static final String UNAVAILABLE = register();

  private final long iovecs = UNSAFE.allocateMemory(32); // local {base, len}, remote {base, len}

  private static String register() {
    if (!Platform.isLinux() || !Platform.is64Bit()) {
      return "cross-memory attach needs 64-bit Linux (this is "
          + System.getProperty("os.name")
          + ")";
    }
    try {
      Native.register(CrossMemory.class, Platform.C_LIBRARY_NAME);
      return null;
    } catch (Throwable e) { // UnsatisfiedLinkError, or JNA's own native library missing
      return "JNA could not bind process_vm_readv: " + e;
    }
  }

  private static native long process_vm_readv(
      int pid, long localIov, long localCount, long remoteIov, long remoteCount, long flags)
      throws LastErrorException;

  private static native int prctl(int option, long arg2, long arg3, long arg4, long arg5)
      throws LastErrorException;

  /** Null when process_vm_readv can be called at all, else why not. */
  public static String unavailable() {
    return UNAVAILABLE;
  }

  /**
   * Under Yama {@code ptrace_scope=1} lets any process of this uid read this one (peers on this
   * node are not its ancestors); a no-op elsewhere. Returns what it did, for the log, or null.
   */
  static String allowPeersUnderYama() {
    Path scope = Path.of("/proc/sys/kernel/yama/ptrace_scope");
    try {
      if (UNAVAILABLE != null
          || !Files.exists(scope)
          || !"1".equals(Files.readString(scope).trim())) {
        return null;
      }
      prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
      return "Yama ptrace_scope=1: prctl(PR_SET_PTRACER, ANY) lets node peers read this rank";
    } catch (LastErrorException e) {
      return "Yama ptrace_scope=1 and prctl(PR_SET_PTRACER) failed with errno " + e.getErrorCode();
    } catch (java.io.IOException e) {
      return null;
    }
  }

  /**
   * Copies {@code lengthBytes} from address {@code remote} of process {@code pid} to {@code local}
   * in this process.
   *
   * @return 0, or the errno that stopped it (EPERM, ESRCH: the process is gone, EFAULT: the remote
   *     range is not mapped, ENOSYS)
   */
  public int read(int pid, long remote, long local, long lengthBytes) {
    long a = iovecs;
    while (lengthBytes > 0) {
      UNSAFE.putLong(a, local);
      UNSAFE.putLong(a + 8, lengthBytes);
      UNSAFE.putLong(a + 16, remote);
      UNSAFE.putLong(a + 24, lengthBytes);
      long got;
      try {
        got = process_vm_readv(pid, a, 1, a + 16, 1, 0);
      } catch (LastErrorException e) {
        return e.getErrorCode();
      }
      if (got <= 0) {
        return EFAULT; // a partial read that stopped at an unmapped page
      }
      local += got;
      remote += got;
      lengthBytes -= got;
    }
    return 0;
  }

  /** A few words on {@code errno} of {@link #read} and how to fix it. */
  public static String explain(int errno) {
    switch (errno) {
      case EPERM:
        return "EPERM: not allowed to read the peer's memory (Yama ptrace_scope >= 2, a seccomp"
            + " profile, or another uid; fix: run ranks as one user, allow process_vm_readv /"
            + " ptrace in the container's seccomp profile or with --cap-add=SYS_PTRACE, or set"
            + " DDP4J_CMA_DISABLE=1)";
      case ESRCH:
        return "ESRCH: no such process (the peer exited, or runs in another pid namespace; fix:"
            + " share the pid namespace, e.g. docker --pid=host, or set DDP4J_CMA_DISABLE=1)";
      case EFAULT:
        return "EFAULT: the peer's address range is not mapped";
      case ENOSYS:
        return "ENOSYS: the kernel or seccomp refuses process_vm_readv (fix: set"
            + " DDP4J_CMA_DISABLE=1)";
      default:
        return "errno " + errno;
    }
  }

  @Override
  public void close() {
    UNSAFE.freeMemory(iovecs);
  }
}
