package dev.ddp4j.launcher;

/**
 * Where each worker stream goes, from {@code --log-dir}, {@code --redirects}, {@code --tee} and
 * {@code --local-ranks-filter}: console (prefixed {@code [rankN]:}), file, or both.
 *
 * @param redirects bit 1 = stdout, bit 2 = stderr: to files only
 * @param tee bit 1 = stdout, bit 2 = stderr: to files and console
 */
record OutputMode(int redirects, int tee) {

  static final int STDOUT = 1;
  static final int STDERR = 2;

  static int parseStreams(String flag, String value) {
    String v = value == null ? "0" : value.trim();
    if (v.length() != 1 || v.charAt(0) < '0' || v.charAt(0) > '3') {
      throw new UsageException(
          flag + "=" + value + " is not accepted (expected: 0 none, 1 stdout, 2 stderr, 3 both)");
    }
    return v.charAt(0) - '0';
  }

  boolean toFile(int stream) {
    return ((redirects | tee) & stream) != 0;
  }

  boolean toConsole(int stream) {
    return (redirects & stream) == 0;
  }
}
