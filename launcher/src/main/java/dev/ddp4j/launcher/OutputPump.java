package dev.ddp4j.launcher;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Copies one worker stream line by line to the console (prefixed {@code [rankN]:}) and/or a file,
 * keeping its last {@value #TAIL_LINES} lines for the failure summary. Runs on its own thread until
 * the stream ends.
 */
final class OutputPump implements Runnable {

  static final int TAIL_LINES = 20;
  private static final Object CONSOLE = new Object();

  private final InputStream in;
  private final String prefix;
  private final PrintStream console;
  private final Path file;
  private final Deque<String> tail = new ArrayDeque<>();
  private final Thread thread;

  /**
   * @param console where lines go with their prefix, or null for none
   * @param file where lines go unprefixed, or null for none
   */
  OutputPump(InputStream in, String name, String prefix, PrintStream console, Path file) {
    this.in = in;
    this.prefix = prefix;
    this.console = console;
    this.file = file;
    this.thread = new Thread(this, name);
    this.thread.setDaemon(true);
  }

  OutputPump start() {
    thread.start();
    return this;
  }

  @Override
  public void run() {
    BufferedWriter writer = null;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      if (file != null) {
        Files.createDirectories(file.getParent());
        writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
      }
      String line;
      while ((line = r.readLine()) != null) {
        synchronized (tail) {
          tail.addLast(line);
          if (tail.size() > TAIL_LINES) {
            tail.removeFirst();
          }
        }
        if (console != null) {
          synchronized (CONSOLE) {
            console.println(prefix + line);
          }
        }
        if (writer != null) {
          writer.write(line);
          writer.newLine();
          writer.flush();
        }
      }
    } catch (IOException e) {
      // The worker died mid-line or its pipe closed: what was read is kept.
    } finally {
      if (writer != null) {
        try {
          writer.close();
        } catch (IOException e) {
          // nothing more to save
        }
      }
    }
  }

  /** Waits up to {@code millis} for the stream to end, so the tail holds the last lines. */
  void join(long millis) {
    try {
      thread.join(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  List<String> tail() {
    synchronized (tail) {
      return new ArrayList<>(tail);
    }
  }
}
