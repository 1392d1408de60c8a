package arno.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class ConfigTest {
    private static final Path HOME = Path.of("/opt/arno");

    private static Config with(Consumer<Config.Builder> change) {
        Config.Builder b = Config.defaults(HOME).toBuilder();
        change.accept(b);
        return b.build();
    }

    private static void refused(Consumer<Config.Builder> change, String message) {
        assertThatThrownBy(() -> with(change)).isInstanceOf(ArnoException.class)
                .satisfies(e -> assertThat(((ArnoException) e).code()).isEqualTo(ErrorCode.BAD_CONFIGURATION))
                .hasMessageContaining(message);
    }

    @Test
    void defaultsAreValidAndKeepBatchJobsOutOfTheDataFolder() {
        Config c = Config.defaults(HOME).toBuilder().build();
        assertThat(c.data()).isEqualTo(HOME.resolve("data"));
        assertThat(c.sites()).isEqualTo(HOME.resolve("sites"));
        assertThat(c.content()).isEqualTo(HOME.resolve("data/content"));
        assertThat(c.store()).isEqualTo(HOME.resolve("data/store"));
        assertThat(c.batchData()).isEqualTo(HOME.resolve("data/batch"));
        assertThat(c.bind()).isEqualTo("127.0.0.1");
        assertThat(c.port()).isEqualTo(8080);
        assertThat(c.production()).isFalse();
        assertThat(c.workers()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(c.batchRoots()).isEmpty();
    }

    @Test
    void everyWrongValueIsRefusedByName() {
        refused(b -> b.workers = 0, "workers must be at least 1, not 0");
        refused(b -> b.queue = 0, "queue must hold at least 1 request, not 0");
        refused(b -> b.port = 70000, "port must be between 0 and 65535, not 70000");
        refused(b -> b.port = -1, "port must be between 0 and 65535, not -1");
        refused(b -> b.bind = " ", "bind address must not be empty");
        refused(b -> b.bind = "no-such-host.invalid", "bind address 'no-such-host.invalid'");
        refused(b -> b.hosts = List.of("http://journals.example.org/"), "host 'http://journals.example.org/' is not a host name");
        refused(b -> b.bodyLimit = 0, "body limit must be positive");
        refused(b -> b.routeTimeout = Duration.ZERO, "route time limit must be positive");
        refused(b -> b.storeMapSize = 1000, "store map size must be at least 1M");
        refused(b -> b.batchWorkers = 0, "batch workers must be at least 1");
        refused(b -> b.batchQueue = 0, "batch queue must hold at least 1 job");
    }

    @Test
    void aBatchRootMayNotExposeTheDataFolder() {
        refused(b -> b.batchRoots = List.of(HOME.resolve("data")), "would expose the data folder");
        refused(b -> b.batchRoots = List.of(HOME), "would expose the data folder");
        refused(b -> b.batchRoots = List.of(HOME.resolve("data/batch/in")), "would expose the data folder");
        refused(b -> b.batchRoots = List.of(HOME.resolve("data/store")), "would expose the data folder");
        refused(b -> b.batchRoots = List.of(HOME.resolve("data/content/journals")), "would expose the data folder");
        assertThat(with(b -> b.batchRoots = List.of(Path.of("/srv/in"))).batchRoots()).containsExactly(Path.of("/srv/in"));
    }

    @Test
    void aBatchRootLinkedIntoTheDataFolderIsRefused(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        Path data = java.nio.file.Files.createDirectories(tmp.resolve("data/store"));
        Path link = tmp.resolve("innocent");
        try {
            java.nio.file.Files.createSymbolicLink(link, data);
        } catch (UnsupportedOperationException | java.io.IOException e) {
            return; // no links here: nothing to follow
        }
        Config.Builder b = Config.defaults(tmp).toBuilder();
        b.batchRoots = List.of(link);
        assertThatThrownBy(b::build).hasMessageContaining("would expose the data folder");
    }

    @Test
    void sizesAndDurationsHaveUnits() {
        assertThat(Config.size("16G", "s")).isEqualTo(16L << 30);
        assertThat(Config.size("512m", "s")).isEqualTo(512L << 20);
        assertThat(Config.size("4K", "s")).isEqualTo(4096);
        assertThat(Config.size("1048576", "s")).isEqualTo(1 << 20);
        assertThatThrownBy(() -> Config.size("16X", "store/@map-size")).hasMessage(
                "store/@map-size needs a size such as 512M or 16G, not '16X'");
        assertThatThrownBy(() -> Config.size("99999999999T", "s")).hasMessageContaining("not '99999999999T'");
        assertThat(Config.duration("10s", "d")).isEqualTo(Duration.ofSeconds(10));
        assertThat(Config.duration("500ms", "d")).isEqualTo(Duration.ofMillis(500));
        assertThat(Config.duration("5m", "d")).isEqualTo(Duration.ofMinutes(5));
        assertThat(Config.duration("1h", "d")).isEqualTo(Duration.ofHours(1));
        assertThat(Config.duration("PT1M30S", "d")).isEqualTo(Duration.ofSeconds(90));
        assertThat(Config.duration("pt10s", "d")).isEqualTo(Duration.ofSeconds(10));
        assertThatThrownBy(() -> Config.duration("10 seconds", "pages/@route-time-limit")).hasMessage(
                "pages/@route-time-limit needs a duration such as 10s, 500ms or PT1M30S, not '10 seconds'");
        assertThatThrownBy(() -> Config.duration("PT", "d")).hasMessageContaining("not 'PT'");
    }
}
