package dev.ddp4j.launcher;

import java.util.Locale;

/**
 * JSON string literals for the launcher's {@code --json} outputs ({@code topo}, {@code doctor}).
 */
public final class JsonText {

  private JsonText() {}

  /** {@code s} as a JSON string literal: quoted, with quotes, backslashes and controls escaped. */
  public static String str(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        default -> {
          if (c < 0x20) {
            sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"').toString();
  }
}
