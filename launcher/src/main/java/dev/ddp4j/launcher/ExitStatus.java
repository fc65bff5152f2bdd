package dev.ddp4j.launcher;

/** Describes a worker's exit status; Java reports death by signal N as 128 + N. */
final class ExitStatus {

  private ExitStatus() {}

  static String describe(int code) {
    if (code > 128 && code < 128 + 32) {
      int sig = code - 128;
      return "exit code " + code + " (killed by signal " + sig + ", SIG" + signalName(sig) + ")";
    }
    return "exit code " + code;
  }

  static String signalName(int sig) {
    switch (sig) {
      case 1:
        return "HUP";
      case 2:
        return "INT";
      case 3:
        return "QUIT";
      case 4:
        return "ILL";
      case 6:
        return "ABRT";
      case 7:
        return "BUS";
      case 8:
        return "FPE";
      case 9:
        return "KILL";
      case 11:
        return "SEGV";
      case 13:
        return "PIPE";
      case 15:
        return "TERM";
      default:
        return Integer.toString(sig);
    }
  }
}
