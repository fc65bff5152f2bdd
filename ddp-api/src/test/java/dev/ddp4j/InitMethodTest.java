package dev.ddp4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class InitMethodTest {

  @Test
  void shouldParseTheThreeForms() {
    assertThat(InitMethod.parse("env://").scheme()).isEqualTo(InitMethod.Scheme.ENV);
    InitMethod tcp = InitMethod.parse("tcp://10.0.0.5:29500");
    assertThat(tcp.host()).isEqualTo("10.0.0.5");
    assertThat(tcp.port()).isEqualTo(29500);
    assertThat(InitMethod.parse("tcp://[::1]:1234").host()).isEqualTo("::1");
    assertThat(InitMethod.parse("tcp://[::1]:1234").toString()).isEqualTo("tcp://[::1]:1234");
    assertThat(InitMethod.parse("file:///mnt/shared/job42.store").path())
        .isEqualTo(Path.of("/mnt/shared/job42.store"));
    assertThat(InitMethod.parse("TCP://node-a:1").toString()).isEqualTo("tcp://node-a:1");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "tcp://host|lacks a host or port",
        "tcp://host:0|port 0 is out of range",
        "tcp://host:70000|port 70000 is out of range",
        "file://relative/path|names host 'relative'",
        "http://x:1|unknown scheme",
        "10.0.0.5:29500|has no scheme",
        "tcp://a b:1|is not a URL"
      })
  void shouldNameTheBadUrlAndTheFix(String url, String message) {
    assertThatThrownBy(() -> InitMethod.parse(url))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(url)
        .hasMessageContaining(message);
  }

  @Test
  void shouldRefuseAnEmptyUrl() {
    assertThatThrownBy(() -> InitMethod.parse(" "))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("expected: env://, tcp://HOST:PORT or file:///ABSOLUTE/PATH");
  }
}
