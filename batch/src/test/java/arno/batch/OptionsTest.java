package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Settings are refused when built, naming the setting; the service's own XML stays parseable whatever it carries. */
class OptionsTest {
    @TempDir Path tmp;

    @Test void badSettingsAreRefusedWithTheirNameAndValue() {
        assertThatThrownBy(() -> BatchOptions.builder(tmp).workers(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("batch option workers must be at least 1, not 0");
        assertThatThrownBy(() -> BatchOptions.builder(tmp).queueBound(-3).build()).hasMessageContaining("queueBound");
        assertThatThrownBy(() -> BatchOptions.builder(tmp).httpTimeout(java.time.Duration.ZERO).build())
                .hasMessageContaining("httpTimeout");
    }

    @Test void defaultsAreInOnePlace() {
        BatchOptions o = BatchOptions.builder(tmp).roots(List.of(tmp.resolve("r"))).build();
        assertThat(o.workers()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(o.usersFile()).isEqualTo(tmp.resolve("users"));
        assertThat(o.queueBound()).isEqualTo(100);
    }

    @Test void charactersXmlCannotCarryAreReplacedNotWritten() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Xml xml = new Xml(bytes);
        xml.start("e").attr("a", "x\u0001\"<&\n").text("bell\u0007 and \uD800 lone surrogate, 😀 kept").end().flush();
        String s = bytes.toString(StandardCharsets.UTF_8);
        assertThat(s).isEqualTo("<e a=\"x\uFFFD&quot;&lt;&amp;&#10;\">bell\uFFFD and \uFFFD lone surrogate, 😀 kept</e>");
        org.xmlunit.assertj3.XmlAssert.assertThat(s).valueByXPath("/e/@a").isEqualTo("x\uFFFD\"<&\n");
    }
}
