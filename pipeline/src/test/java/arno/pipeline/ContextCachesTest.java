package arno.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import arno.cache.Dependencies;
import arno.cache.Ticker;
import arno.store.Store;
import arno.store.WriteTransaction;
import arno.xml.Outbound;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The context caches of a site, with real parts: a real LMDB store, real Saxon, and a real HTTP
 * server on a loopback socket for external sources. {@code cache:fragment} keeps what its build
 * returned while what the build read is unchanged (a fragment shows it is the cached one by the
 * identity of its tree, {@code generate-id}); {@code doc()} of an http URI is fetched once, kept
 * with its ETag and asked again conditionally after the site's interval (timed by an injected clock).
 */
class ContextCachesTest {
    @TempDir
    Path tmp;

    private HttpServer http;
    /** The feed the test server serves, its ETag, and every request's If-None-Match ("" when none). */
    private final AtomicReference<String> feed = new AtomicReference<>("<feed><title>first</title></feed>");
    private final AtomicReference<String> etag = new AtomicReference<>("\"v1\"");
    private final List<String> asked = new CopyOnWriteArrayList<>();
    private final AtomicLong now = new AtomicLong(1_700_000_000_000_000_000L);
    private final Ticker clock = now::get;

    @AfterEach
    void stop() {
        if (http != null) http.stop(0);
    }

    private String startFeedServer() throws IOException {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/feed.xml", ex -> {
            String given = ex.getRequestHeaders().getFirst("If-None-Match");
            asked.add(given == null ? "" : given);
            ex.getResponseHeaders().set("ETag", etag.get());
            if (etag.get().equals(given)) {
                ex.sendResponseHeaders(304, -1);
            } else {
                byte[] body = feed.get().getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().set("Content-Type", "application/xml");
                ex.sendResponseHeaders(200, body.length);
                try (OutputStream o = ex.getResponseBody()) {
                    o.write(body);
                }
            }
            ex.close();
        });
        http.start();
        return "http://127.0.0.1:" + http.getAddress().getPort() + "/feed.xml";
    }

    private Path site(String stylesheet, String siteCache) throws IOException {
        Path root = tmp.resolve("root");
        Path site = Files.createDirectories(root.resolve("sites/s"));
        Files.createDirectories(root.resolve("content"));
        Files.writeString(site.resolve("s.xsl"), stylesheet);
        Files.writeString(site.resolve("site.xml"), "<site xmlns='urn:arno:site' name='s'><prefix>/s</prefix>"
                + siteCache + "<route name='r' pattern='/r'><template xslt='s.xsl'/></route></site>");
        return root;
    }

    private static String respond(Sites sites, Reads reads) {
        Exchange x = sites.exchange(HttpRequest.builder("GET", "/s/r").build());
        if (reads != null) x.record(reads);
        String out = x.respond().toString();
        assertThat(x.error()).as(out).isNull();
        int from = out.indexOf("[[");
        return out.substring(from + 2, out.indexOf("]]", from));
    }

    private static void put(Store store, String path, String xml) {
        try (WriteTransaction w = store.write()) {
            w.put(path, xml.getBytes(StandardCharsets.UTF_8));
            w.commit();
        }
    }

    private static final String FRAGMENT_PAGE = """
            <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:rsp="urn:arno:response" xmlns:cache="urn:arno:cache" xmlns:f="urn:f" exclude-result-prefixes="#all">
              <xsl:function name="f:titles" as="element(titles)">
                <titles n="{count(collection('store:/docs/'))}"><xsl:value-of select="doc('store:/docs/a.xml')/doc/title"/></titles>
              </xsl:function>
              <xsl:template match="/">
                <!-- The page reads a.xml first: the fragment's build then finds it in the request's own cache. -->
                <xsl:variable name="a" select="doc('store:/docs/a.xml')/doc/title"/>
                <xsl:variable name="t" select="cache:fragment('titles', f:titles#0)"/>
                <rsp:response><rsp:body method="text">[[<xsl:value-of select="$a, $t/@n, string($t), generate-id($t)"
                    separator="|"/>]]</rsp:body></rsp:response>
              </xsl:template>
            </xsl:stylesheet>""";

    @Test
    void aFragmentIsBuiltOnceAndRebuiltWhenWhatItsBuildReadChanges() throws Exception {
        Path root = site(FRAGMENT_PAGE, "");
        try (Store store = Store.open(tmp.resolve("store"))) {
            put(store, "/docs/a.xml", "<doc><title>A1</title></doc>");
            put(store, "/docs/b.xml", "<doc><title>B</title></doc>");
            Sites sites = Sites.compile(PipelineCasesTest.config(root, false), store, clock);
            String[] first = respond(sites, null).split("\\|");
            assertThat(first).containsExactly("A1", "2", "A1", first[3]);
            String[] second = respond(sites, null).split("\\|");
            assertThat(second[3]).as("the same tree: the cached fragment").isEqualTo(first[3]);

            // The page that uses the cached fragment inherits what its build read.
            Reads reads = new Reads();
            respond(sites, reads);
            assertThat(reads.dependencies()).extracting(Dependencies.Dependency::kind, Dependencies.Dependency::uri)
                    .contains(org.assertj.core.groups.Tuple.tuple(Reads.STORE, "/docs/a.xml"),
                            org.assertj.core.groups.Tuple.tuple(Reads.STORE_URIS, "/docs/"));

            // A store change the fragment did not read leaves it; one it read (a document, a listing) rebuilds it.
            put(store, "/other.xml", "<doc/>");
            assertThat(respond(sites, null).split("\\|")[3]).isEqualTo(first[3]);
            put(store, "/docs/a.xml", "<doc><title>A2</title></doc>");
            String[] third = respond(sites, null).split("\\|");
            assertThat(third).containsExactly("A2", "2", "A2", third[3]);
            assertThat(third[3]).isNotEqualTo(first[3]);
            put(store, "/docs/c.xml", "<doc><title>C</title></doc>");
            String[] fourth = respond(sites, null).split("\\|");
            assertThat(fourth[1]).isEqualTo("3");
            assertThat(fourth[3]).isNotEqualTo(third[3]);

            ContextCacheStats stats = sites.engine.caches.contextStats().get("s");
            assertThat(stats.fragments().entries()).isEqualTo(1);
            assertThat(stats.fragments().hits()).isEqualTo(3);
            assertThat(stats.fragments().stale()).isEqualTo(2);

            // The change feed evicts it at once, as it evicts pages.
            sites.engine.caches.invalidate("/docs/b.xml", 99, false);
            assertThat(sites.engine.caches.contextStats().get("s").fragments().invalidations()).isEqualTo(1);
            assertThat(sites.engine.caches.contextStats().get("s").fragments().entries()).isZero();
            sites.engine.caches.close();
        }
    }

    @Test
    void withFragmentsOffOrTheCachesOffEveryCallBuilds() throws Exception {
        Path root = site(FRAGMENT_PAGE, "<cache><fragments items='0'/></cache>");
        try (Store store = Store.open(tmp.resolve("store"))) {
            put(store, "/docs/a.xml", "<doc><title>A1</title></doc>");
            Sites sites = Sites.compile(PipelineCasesTest.config(root, false), store, clock);
            assertThat(respond(sites, null).split("\\|")[3]).isNotEqualTo(respond(sites, null).split("\\|")[3]);
            sites.engine.caches.close();
            Files.writeString(root.resolve("sites/s/site.xml"), Files.readString(root.resolve("sites/s/site.xml"))
                    .replace("<cache><fragments items='0'/></cache>", ""));
            Sites off = Sites.compile(PipelineCasesTest.config(root, false).withPageCaches(false), store, clock);
            assertThat(respond(off, null).split("\\|")[3]).isNotEqualTo(respond(off, null).split("\\|")[3]);
            assertThat(off.engine.caches.contextStats()).isEmpty();
            off.engine.caches.close();
        }
    }

    @Test
    void anExternalSourceIsFetchedOnceAndAskedAgainConditionallyAfterTheInterval() throws Exception {
        String url = startFeedServer();
        Path root = site("""
                <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                    xmlns:rsp="urn:arno:response" exclude-result-prefixes="#all">
                  <xsl:template match="/">
                    <xsl:variable name="d" select="doc('%s')"/>
                    <rsp:response><rsp:body method="text">[[<xsl:value-of select="$d/feed/title, generate-id($d)"
                        separator="|"/>]]</rsp:body></rsp:response>
                  </xsl:template>
                </xsl:stylesheet>""".formatted(url), "<cache><sources revalidate='10m'/></cache>");
        PipelineConfig config = PipelineCasesTest.config(root, false).withOutbound(Outbound.Policy.DEFAULT.allowingPrivate());
        Sites sites = Sites.compile(config, null, clock);
        String[] first = respond(sites, null).split("\\|");
        assertThat(first[0]).isEqualTo("first");
        assertThat(respond(sites, null).split("\\|")[1]).as("parsed once").isEqualTo(first[1]);
        assertThat(asked).containsExactly("");

        now.addAndGet(Duration.ofMinutes(11).toNanos());
        Reads reads = new Reads();
        assertThat(respond(sites, reads).split("\\|")[1]).as("a 304 keeps the tree").isEqualTo(first[1]);
        assertThat(asked).containsExactly("", "\"v1\"");
        assertThat(reads.dependencies()).contains(new Dependencies.Dependency(Reads.URI, url, "etag \"v1\""));

        feed.set("<feed><title>second</title></feed>");
        etag.set("\"v2\"");
        assertThat(respond(sites, null).split("\\|")[0]).as("within the interval").isEqualTo("first");
        now.addAndGet(Duration.ofMinutes(11).toNanos());
        assertThat(respond(sites, null).split("\\|")[0]).isEqualTo("second");
        assertThat(asked).containsExactly("", "\"v1\"", "\"v1\"");

        ContextCacheStats stats = sites.engine.caches.contextStats().get("s");
        assertThat(stats.sourceFetches()).isEqualTo(2);
        assertThat(stats.sourceNotModified()).isEqualTo(1);
        assertThat(stats.sources().entries()).isEqualTo(1);
        sites.engine.caches.close();
    }

    @Test
    void aPageCheckAsksForItsExternalSourcesConditionallyOnlyWhenTheyAreDue() throws Exception {
        String url = startFeedServer();
        Path root = site("<xsl:stylesheet version='3.0' xmlns:xsl='http://www.w3.org/1999/XSL/Transform'/>",
                "<cache><sources revalidate='10m'/></cache>");
        PipelineConfig config = PipelineCasesTest.config(root, false).withOutbound(Outbound.Policy.DEFAULT.allowingPrivate());
        Sites sites = Sites.compile(config, null, clock);
        ContextCache context = sites.engine.caches.context("s");
        Dependencies page = Dependencies.of(new Dependencies.Dependency(Reads.URI, url, "etag \"v1\""),
                new Dependencies.Dependency(Reads.URI, "http://example.org/unversioned.json", ""));
        try (Check check = new Check(sites.code, null, true, context.files, context.sources, clock)) {
            // Nothing known yet: the versioned URI is due (the unversioned one is trusted), and asked conditionally.
            Dependencies due = check.screen(page);
            assertThat(due.asList()).containsExactly(page.asList().get(0));
            assertThat(check.isCurrent(due.asList().get(0))).isTrue();
            assertThat(asked).containsExactly("\"v1\"");
        }
        try (Check check = new Check(sites.code, null, true, context.files, context.sources, clock)) {
            assertThat(check.screen(page).asList()).as("known for the interval: no request").isEmpty();
            assertThat(asked).hasSize(1);
        }
        etag.set("\"v2\"");
        now.addAndGet(Duration.ofMinutes(11).toNanos());
        try (Check check = new Check(sites.code, null, true, context.files, context.sources, clock)) {
            Dependencies due = check.screen(page);
            assertThat(due.asList()).hasSize(1);
            assertThat(check.isCurrent(due.asList().get(0))).as("the server has a new version").isFalse();
        }
        try (Check check = new Check(sites.code, null, true, context.files, context.sources, clock)) {
            assertThat(check.screen(page)).as("the new version is known now: stale at once").isNull();
        }
        sites.engine.caches.close();
    }

    @Test
    void cacheFragmentIsTheOnlyExtensionFunctionAndJavaCallsStayRefused() throws Exception {
        Path root = site("""
                <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                    xmlns:rsp="urn:arno:response" exclude-result-prefixes="#all">
                  <xsl:template match="/">
                    <rsp:response><rsp:body method="text">[[<xsl:value-of
                        select="Q{java:java.lang.System}getProperty('user.home')"/>]]</rsp:body></rsp:response>
                  </xsl:template>
                </xsl:stylesheet>""", "");
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(
                () -> Sites.compile(PipelineCasesTest.config(root, false), null, clock));
        assertThat(t).isInstanceOf(arno.xml.ArnoException.class);
        assertThat(((arno.xml.ArnoException) t).code()).isEqualTo(arno.xml.ErrorCode.SITE_ERROR);
        assertThat(((arno.xml.ArnoException) t).describe()).contains("getProperty");
    }
}
