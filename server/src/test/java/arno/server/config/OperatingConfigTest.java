package arno.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.ConsoleHandler;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The operating settings (compression, trusted proxies, logs): read, checked, defaulted, applied. */
class OperatingConfigTest {
    @TempDir
    Path dir;

    private final Config base = Config.defaults(Path.of("/opt/arno"));

    private Path file(String xml) throws IOException {
        return Files.writeString(dir.resolve("arno.xml"), xml, StandardCharsets.UTF_8);
    }

    private static ArnoException refused(Config.Builder b) {
        try {
            b.build();
        } catch (ArnoException e) {
            assertThat(e.code()).isEqualTo(ErrorCode.BAD_CONFIGURATION);
            return e;
        }
        throw new AssertionError("accepted");
    }

    @Test
    void byDefaultNoProxyIsTrustedTextIsCompressedAndOnlyInfoAndAboveGoToStandardError() {
        assertThat(base.trustedProxies()).isEmpty();
        assertThat(base.compression()).isTrue();
        assertThat(base.logLevel()).isEqualTo(Config.LogLevel.INFO);
        assertThat(base.logFile()).isNull();
        assertThat(base.accessLog()).isNull();
    }

    @Test
    void theFileSetsThemWithPathsRelativeToItsFolder() throws IOException {
        Config c = ConfigFile.read(file("""
                <arno xmlns="urn:arno:config">
                  <http compression="off"/>
                  <proxies trusted=" 10.0.0.0/8  192.168.1.5 fd00::/8 "/>
                  <log level="debug" file="logs/arno.log" access="/var/log/arno/access.log"/>
                </arno>"""), base).toBuilder().build();
        assertThat(c.compression()).isFalse();
        assertThat(c.trustedProxies()).containsExactly("10.0.0.0/8", "192.168.1.5", "fd00::/8");
        assertThat(c.logLevel()).isEqualTo(Config.LogLevel.DEBUG);
        assertThat(c.logFile()).isEqualTo(dir.resolve("logs/arno.log"));
        assertThat(c.accessLog()).isEqualTo(Path.of("/var/log/arno/access.log"));
        // An empty list trusts no one, whatever the base said.
        Config.Builder b = base.toBuilder();
        b.trustedProxies = List.of("10.0.0.0/8");
        assertThat(ConfigFile.read(file("<arno xmlns='urn:arno:config'><proxies trusted=''/></arno>"), b.build()).trustedProxies())
                .isEmpty();
    }

    @Test
    void theExampleNamesThem() throws IOException {
        Path example = dir.resolve("example.xml");
        try (InputStream in = ConfigFile.class.getResourceAsStream("/arno/config-example.xml")) {
            Files.copy(in, example);
        }
        Config c = ConfigFile.read(example, base).toBuilder().build();
        assertThat(c.compression()).isTrue();
        assertThat(c.trustedProxies()).containsExactly("10.0.0.0/8", "192.168.1.5");
        assertThat(c.logLevel()).isEqualTo(Config.LogLevel.INFO);
        assertThat(c.logFile()).isEqualTo(dir.resolve("logs/arno.log"));
        assertThat(c.accessLog()).isEqualTo(dir.resolve("logs/access.log"));
    }

    @Test
    void theSchemaRefusesAHostNameAsAProxyAndAnUnknownLevelWithTheirPlace() throws IOException {
        for (String bad : List.of("<proxies trusted='proxy.example.org'/>", "<log level='verbose'/>", "<http compression='yes'/>")) {
            Path f = file("<arno xmlns='urn:arno:config'>\n  " + bad + "\n</arno>");
            assertThatThrownBy(() -> ConfigFile.read(f, base)).isInstanceOfSatisfying(ArnoException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.BAD_CONFIGURATION);
                assertThat(e.where().line()).isEqualTo(2);
            });
        }
    }

    @Test
    void aProxyMustBeAnAddressOrACidrBlockWithoutHostBits() {
        Config.Builder b = base.toBuilder();
        b.trustedProxies = List.of("10.1.0.0/8");
        assertThat(refused(b).getMessage()).contains("10.1.0.0/8").contains("did you mean 10.0.0.0/8");
        b.trustedProxies = List.of("fd00::1/8");
        assertThat(refused(b).getMessage()).contains("did you mean fd00:0:0:0:0:0:0:0/8");
        b.trustedProxies = List.of("10.0.0.0/33");
        assertThat(refused(b).getMessage()).contains("between 0 and 32");
        for (String bad : List.of("proxy.example.org", "300.1.1.1", "10.0.0", "10.0.0.0/x", "::g", "")) {
            b.trustedProxies = List.of(bad);
            assertThat(refused(b).getMessage()).contains("'" + bad + "'").contains("CIDR");
        }
        b.trustedProxies = List.of("127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8", "0.0.0.0/0");
        assertThat(b.build().trustedProxies()).hasSize(5);
    }

    @Test
    void theLogFilesMustBeFilesAndDifferent() throws IOException {
        Config.Builder b = base.toBuilder();
        b.logFile = dir;
        assertThat(refused(b).getMessage()).contains("is a folder");
        b.logFile = dir.resolve("arno.log");
        b.accessLog = dir.resolve("arno.log");
        assertThat(refused(b).getMessage()).contains("different files");
    }

    @Test
    void logLinesGoToTheFileAtTheLevelAskedAndBackToTheConsoleAfter() throws IOException {
        Path log = dir.resolve("logs/arno.log");
        System.Logger arno = System.getLogger("arno");
        Logger root = Logger.getLogger("");
        try {
            Logging.apply(Config.LogLevel.DEBUG, log);
            assertThat(root.getHandlers()).noneMatch(h -> h instanceof ConsoleHandler);
            arno.log(System.Logger.Level.DEBUG, "a debug line");
            arno.log(System.Logger.Level.TRACE, "a trace line");
            Logger.getLogger("org.apache.catalina.test").info("a line of Tomcat's");
            String text = Files.readString(log, StandardCharsets.UTF_8);
            assertThat(text).contains("a debug line").contains("a line of Tomcat's").doesNotContain("a trace line");

            Logging.apply(Config.LogLevel.WARNING, log); // the same file stays open
            arno.log(System.Logger.Level.INFO, "an info line");
            arno.log(System.Logger.Level.WARNING, "a warning line");
            assertThat(Files.readString(log, StandardCharsets.UTF_8)).doesNotContain("an info line").contains("a warning line");
        } finally {
            Logging.apply(Config.LogLevel.INFO, null);
        }
        assertThat(root.getHandlers()).anyMatch(h -> h instanceof ConsoleHandler);
        arno.log(System.Logger.Level.INFO, "after the file");
        assertThat(Files.readString(log, StandardCharsets.UTF_8)).doesNotContain("after the file");
        assertThatThrownBy(() -> Logging.apply(Config.LogLevel.INFO, dir)).isInstanceOf(ArnoException.class)
                .hasMessageContaining("cannot be written");
    }
}
