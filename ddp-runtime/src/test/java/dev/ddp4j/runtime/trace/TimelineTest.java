package dev.ddp4j.runtime.trace;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimelineTest {

  @Test
  void shouldNameOneFilePerRank() {
    assertThat(Timeline.toFile("out/trace.json", 3).file())
        .isEqualTo(Path.of("out/trace.rank3.json"));
    assertThat(Timeline.toFile("t-{rank}.json", 1).file()).isEqualTo(Path.of("t-1.json"));
    assertThat(Timeline.toFile("a.b/trace", 2).file()).isEqualTo(Path.of("a.b/trace.rank2"));
    assertThat(Timeline.disabled().enabled()).isFalse();
  }

  @Test
  void shouldWriteChromeTraceEventsOnBothTracks(@TempDir Path dir) throws Exception {
    Timeline t = Timeline.toFile(dir.resolve("trace.json").toString(), 2);
    long t0 = System.nanoTime();
    t.record("backward layer 1", Timeline.COMPUTE, t0);
    t.record("allreduce bucket 0 (10 elements)", Timeline.COMM, t0);
    t.write();
    String json = Files.readString(dir.resolve("trace.rank2.json"));
    assertThat(json)
        .startsWith("{\"traceEvents\":[")
        .contains("\"name\":\"backward layer 1\",\"ph\":\"X\",\"pid\":2,\"tid\":0")
        .contains("\"name\":\"allreduce bucket 0 (10 elements)\",\"ph\":\"X\",\"pid\":2,\"tid\":1")
        .contains("\"args\":{\"name\":\"rank 2 comm\"}");
  }
}
