package arno.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.store.http.DeleteGuard;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.HostileCorpus;
import arno.xml.Outbound;
import arno.xml.XmlPolicy;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigFileTest {
    @TempDir
    Path dir;

    private final Config base = Config.defaults(Path.of("/opt/arno"));

    private Path file(String xml) throws IOException {
        return Files.writeString(dir.resolve("arno.xml"), xml, StandardCharsets.UTF_8);
    }

    private static ArnoException refusal(Path file, Config base) {
        try {
            ConfigFile.read(file, base);
        } catch (ArnoException e) {
            return e;
        }
        throw new AssertionError(file + " was accepted");
    }

    @Test
    void theBatchsLeastShareIsReadAsAFractionOrAPercentageAndRefusedOutsideZeroToOne() throws IOException {
        assertThat(base.batchMinShare()).isEqualTo(arno.batch.BatchOptions.DEFAULT_MIN_SHARE);
        Path file = dir.resolve("share.xml");
        Files.writeString(file, "<arno xmlns='urn:arno:config'><batch min-share='0.25'/></arno>");
        assertThat(ConfigFile.read(file, base).toBuilder().build().batchMinShare()).isEqualTo(0.25);
        Files.writeString(file, "<arno xmlns='urn:arno:config'><batch min-share='5%'/></arno>");
        assertThat(ConfigFile.read(file, base).toBuilder().build().batchMinShare()).isEqualTo(0.05);
        Files.writeString(file, "<arno xmlns='urn:arno:config'><batch min-share='1'/></arno>");
        assertThat(ConfigFile.read(file, base).toBuilder().build().batchMinShare()).isEqualTo(1.0);
        for (String bad : new String[] {"0", "1.5", "-0.1", "half", "0%"}) {
            Files.writeString(file, "<arno xmlns='urn:arno:config'>\n<batch min-share='" + bad + "'/></arno>");
            assertThat(refusal(file, base).getMessage()).as(bad).contains("line 2").contains("'" + bad + "'");
        }
        Config.Builder b = base.toBuilder();
        b.batchMinShare = 0;
        assertThatThrownBy(b::build).hasMessageContaining("least share must be above 0");
    }

    @Test
    void bodyRateAndBatchTimeLimitOtherThanTheirDefaultsAreRead() throws IOException {
        Path file = dir.resolve("bounds.xml");
        Files.writeString(file, "<arno xmlns='urn:arno:config'><pages body-min-rate='2K' body-grace='2s' body-time-limit='1m'/>"
                + "<batch time-limit='90s'/></arno>");
        Config c = ConfigFile.read(file, base).toBuilder().build();
        assertThat(c.bodyRate()).isEqualTo(new arno.pipeline.BodyRate(2048, Duration.ofSeconds(2), Duration.ofMinutes(1)));
        assertThat(c.batchTimeLimit()).isEqualTo(Duration.ofSeconds(90));
        assertThat(base.bodyRate()).isEqualTo(arno.pipeline.BodyRate.DEFAULT);
        assertThat(base.batchTimeLimit()).isEqualTo(Duration.ofMinutes(10));
        Files.writeString(file, "<arno xmlns='urn:arno:config'><pages body-time-limit='soon'/></arno>");
        assertThat(refusal(file, base).getMessage()).contains("line 1").contains("'soon'");
        Config.Builder b = base.toBuilder();
        b.bodyTimeLimit = Duration.ZERO;
        assertThatThrownBy(b::build).hasMessageContaining("body time limit must be positive");
    }

    @Test
    void storeAndContentSettingsOtherThanTheirDefaultsAreRead() throws IOException {
        Path file = dir.resolve("store.xml");
        Files.writeString(file, "<arno xmlns='urn:arno:config'><pages content-from='files' page-caches='off'/>"
                + "<store change-retention='30d' reads='accounts'/></arno>");
        Config c = ConfigFile.read(file, base);
        assertThat(c.contentFrom()).isEqualTo(Config.ContentFrom.FILES);
        assertThat(c.pageCaches()).isFalse();
        assertThat(c.changeRetention()).isEqualTo(Duration.ofDays(30));
        assertThat(c.storeReads()).isEqualTo(Config.StoreReads.ACCOUNTS);
        Files.writeString(file, "<arno xmlns='urn:arno:config'><store reads='everyone'/></arno>");
        assertThat(refusal(file, base).getMessage()).contains("everyone");
    }

    @Test
    void theStoresGuardedDeletesAreRead() throws IOException {
        assertThat(base.storeDeletes()).isEqualTo(DeleteGuard.DEFAULT);
        Path file = dir.resolve("guard.xml");
        Files.writeString(file, "<arno xmlns='urn:arno:config'><store confirm-delete-depth='3' confirm-delete-documents='5000'/></arno>");
        assertThat(ConfigFile.read(file, base).toBuilder().build().storeDeletes()).isEqualTo(new DeleteGuard(3, 5000));
        Files.writeString(file, "<arno xmlns='urn:arno:config'><store confirm-delete-documents='-1'/></arno>");
        assertThat(refusal(file, base).getMessage()).contains("line 1").contains("'-1'");
        Config.Builder b = base.toBuilder();
        b.confirmDeleteDepth = -1;
        assertThatThrownBy(b::build).hasMessageContaining("depth of the store's confirmed deletes must not be negative");
    }

    /** Issue 25: one memory budget for every site's cached pages, a quarter of the heap unless the file says otherwise. */
    @Test
    void thePageCachesMemoryBudgetIsRead() throws IOException {
        assertThat(base.pageCacheMemory()).isEqualTo(arno.pipeline.PipelineConfig.DEFAULT_PAGE_CACHE_MEMORY)
                .isEqualTo(Math.max(16L << 20, Runtime.getRuntime().maxMemory() / 4));
        Path file = dir.resolve("budget.xml");
        Files.writeString(file, "<arno xmlns='urn:arno:config'><pages page-cache-memory='512M'/></arno>");
        assertThat(ConfigFile.read(file, base).toBuilder().build().pageCacheMemory()).isEqualTo(512L << 20);
        Files.writeString(file, "<arno xmlns='urn:arno:config'><pages page-cache-memory='0'/></arno>");
        assertThat(ConfigFile.read(file, base).pageCacheMemory()).isZero();
        Files.writeString(file, "<arno xmlns='urn:arno:config'><pages page-cache-memory='half'/></arno>");
        assertThat(refusal(file, base).getMessage()).contains("line 1").contains("'half'");
        Config.Builder b = base.toBuilder();
        b.pageCacheMemory = -1;
        assertThatThrownBy(b::build).hasMessageContaining("page-cache-memory (the memory budget of every site's cached pages)"
                + " must not be negative, not -1");
    }

    @Test
    void theExampleIsValidAndEverySettingItNamesIsRead() throws IOException {
        Path example = dir.resolve("example.xml");
        try (InputStream in = ConfigFile.class.getResourceAsStream("/arno/config-example.xml")) {
            Files.copy(in, example);
        }
        Config c = ConfigFile.read(example, base);
        // Relative paths are relative to the file's folder.
        assertThat(c.data()).isEqualTo(dir.resolve("data"));
        assertThat(c.sites()).isEqualTo(dir.resolve("sites"));
        assertThat(c.production()).isFalse();
        assertThat(c.bind()).isEqualTo("127.0.0.1");
        assertThat(c.port()).isEqualTo(8080);
        assertThat(c.hosts()).containsExactly("journals.example.org");
        assertThat(c.workers()).isEqualTo(4);
        assertThat(c.queue()).isEqualTo(1000);
        assertThat(c.bodyLimit()).isEqualTo(10L << 20);
        assertThat(c.routeTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.sourceCache()).isEqualTo(256L << 20);
        assertThat(c.pageCacheMemory()).isEqualTo(256L << 20);
        assertThat(c.storeMapSize()).isEqualTo(16L << 30);
        assertThat(c.contentFrom()).isEqualTo(Config.ContentFrom.STORE);
        assertThat(c.pageCaches()).isTrue();
        assertThat(c.changeRetention()).isEqualTo(Duration.ofDays(7));
        assertThat(c.storeReads()).isEqualTo(Config.StoreReads.PUBLIC);
        assertThat(c.storeDeletes()).isEqualTo(new DeleteGuard(2, 100));
        assertThat(c.xmlLimits()).isEqualTo(new XmlPolicy.Limits(10_000, 1_000_000, 1_000, 4 << 20));
        assertThat(c.outbound()).isEqualTo(new Outbound.Policy(Set.of("http", "https"), List.of("*.ncbi.nlm.nih.gov"),
                false, Duration.ofSeconds(30), 5));
        assertThat(c.batchWorkers()).isEqualTo(2);
        assertThat(c.batchQueue()).isEqualTo(100);
        assertThat(c.batchRoots()).containsExactly(dir.resolve("batch-files"));
        // and together they are a configuration that builds
        assertThat(c.toBuilder().build().port()).isEqualTo(8080);
    }

    @Test
    void whatTheFileLeavesOutKeepsTheBase() throws IOException {
        Config.Builder b = base.toBuilder();
        b.hosts = List.of("a.example.org");
        b.batchRoots = List.of(Path.of("/srv/in"));
        b.workers = 3;
        Config given = b.build();
        Config c = ConfigFile.read(file("""
                <arno xmlns="urn:arno:config" production="true">
                  <http port="9000"/>
                  <outbound private-addresses="true"/>
                </arno>"""), given);
        assertThat(c.production()).isTrue();
        assertThat(c.port()).isEqualTo(9000);
        assertThat(c.bind()).isEqualTo(given.bind());
        assertThat(c.hosts()).containsExactly("a.example.org");
        assertThat(c.batchRoots()).containsExactly(Path.of("/srv/in"));
        assertThat(c.workers()).isEqualTo(3);
        assertThat(c.outbound()).isEqualTo(Outbound.Policy.DEFAULT.allowingPrivate());
        assertThat(c.xmlLimits()).isEqualTo(XmlPolicy.Limits.DEFAULT);
    }

    @Test
    void listsTheFileGivesReplaceTheBase() throws IOException {
        Config c = ConfigFile.read(file("""
                <arno xmlns="urn:arno:config">
                  <batch><root>/srv/a</root><root>b</root></batch>
                  <outbound timeout="PT2M"><scheme>https</scheme><host>example.org</host></outbound>
                </arno>"""), base);
        assertThat(c.batchRoots()).containsExactly(Path.of("/srv/a"), dir.resolve("b"));
        assertThat(c.outbound().schemes()).containsExactly("https");
        assertThat(c.outbound().hosts()).containsExactly("example.org");
        assertThat(c.outbound().timeout()).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void aMisspeltElementIsRefusedWithFileLineAndColumn() throws IOException {
        Path f = file("""
                <arno xmlns="urn:arno:config">
                  <http port="8080"/>
                  <pagse workers="2"/>
                </arno>""");
        ArnoException e = refusal(f, base);
        assertThat(e.code()).isEqualTo(ErrorCode.BAD_CONFIGURATION);
        assertThat(e.where().line()).isEqualTo(3);
        assertThat(e.where().column()).isPositive();
        assertThat(e.describe()).startsWith(f + " line 3 column ").contains("'pagse'").contains("config.xsd")
                .doesNotContain("urn:arno:config\":");
    }

    @Test
    void aMisspeltAttributeOrAWrongValueIsRefusedWhereItIs() throws IOException {
        assertThat(refusal(file("<arno xmlns='urn:arno:config'>\n<http prot='80'/></arno>"), base).describe())
                .contains("line 2 column").contains("prot");
        assertThat(refusal(file("<arno xmlns='urn:arno:config'>\n\n<http port='70000'/></arno>"), base).describe())
                .contains("line 3 column").contains("70000");
        assertThat(refusal(file("<arno xmlns='urn:arno:config'><store map-size='16X'/></arno>"), base).describe())
                .contains("line 1 column").contains("16X");
        assertThat(refusal(file("<arno xmlns='urn:arno:config'><pages workers='0'/></arno>"), base).describe())
                .contains("line 1 column").contains("'0'");
        assertThat(refusal(file("<arno xmlns='urn:arno:config'><pages route-time-limit='10 s'/></arno>"), base).describe())
                .contains("10 s");
        assertThat(refusal(file("<arno xmlns='urn:arno:config'><outbound><scheme>ftp</scheme></outbound></arno>"), base)
                .describe()).contains("ftp");
        // A duration the pattern lets through but that means nothing: refused by its reader, with the place.
        ArnoException pt = refusal(file("<arno xmlns='urn:arno:config'>\n<pages route-time-limit='PT'/></arno>"), base);
        assertThat(pt.code()).isEqualTo(ErrorCode.BAD_CONFIGURATION);
        assertThat(pt.describe()).contains(dir.resolve("arno.xml") + " line 2 column").contains("not 'PT'");
    }

    @Test
    void aFileInAnotherNamespaceOrNotWellFormedIsRefused() throws IOException {
        assertThat(refusal(file("<arno><data>x</data></arno>"), base).describe()).contains("line 1 column").contains("arno");
        ArnoException broken = refusal(file("<arno xmlns='urn:arno:config'>\n<data>x</arno>"), base);
        assertThat(broken.code()).isEqualTo(ErrorCode.MALFORMED_XML);
        assertThat(broken.where().line()).isEqualTo(2);
    }

    @Test
    void aMissingFileIsOneLine() {
        ArnoException e = refusal(dir.resolve("nope.xml"), base);
        assertThat(e.code()).isEqualTo(ErrorCode.BAD_CONFIGURATION);
        assertThat(e.getMessage()).isEqualTo("configuration file " + dir.resolve("nope.xml") + " does not exist");
    }

    /** The configuration file is an entry point for XML like any other: the one hostile corpus, nothing fetched. */
    @Test
    void theHostileCorpusIsRefusedAndNothingIsFetched() throws IOException {
        AtomicInteger fetched = new AtomicInteger();
        HttpServer leak = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        leak.createContext("/", x -> {
            fetched.incrementAndGet();
            byte[] body = "<!ENTITY nbsp 'leaked'>".getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        leak.start();
        try {
            Path secret = Files.writeString(dir.resolve("secret.txt"), "s3cr3t-content");
            String url = "http://127.0.0.1:" + leak.getAddress().getPort() + "/leak";
            for (HostileCorpus.Case c : HostileCorpus.cases(url, secret.toUri().toString())) {
                Path f = Files.write(dir.resolve(c.name() + ".xml"), c.xml());
                ArnoException e = refusal(f, base);
                ErrorCode expected = switch (c.outcome()) {
                    case REFUSED -> ErrorCode.REFUSED_XML;
                    case MALFORMED -> ErrorCode.MALFORMED_XML;
                    // Parsed under the policy, so it reached the schema, which has no such root element.
                    case ACCEPTED -> ErrorCode.BAD_CONFIGURATION;
                };
                assertThat(e.code()).as(c.name()).isEqualTo(expected);
                if (c.outcome() == HostileCorpus.Outcome.REFUSED) {
                    assertThat(XmlPolicy.refusal(e)).as(c.name()).isNotNull();
                    assertThat(XmlPolicy.refusal(e).kind()).as(c.name()).isEqualTo(c.kind());
                }
                if (c.outcome() == HostileCorpus.Outcome.ACCEPTED) {
                    assertThat(e.getMessage()).as(c.name()).contains("cvc-elt.1");
                }
                assertThat(e.describe()).as(c.name()).doesNotContain("s3cr3t-content").doesNotContain("leaked");
            }
            assertThat(fetched).hasValue(0);
        } finally {
            leak.stop(0);
        }
    }
}
