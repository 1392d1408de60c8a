package arno.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import arno.cache.Dependencies;
import arno.store.Store;
import arno.store.WriteTransaction;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * site.xml's cache policies are checked at start-up with file and line, and a request scope
 * records what its pipeline read (store documents with their versions, listings, files) without
 * the pipeline declaring anything. The page cache's behaviour on the wire is tested in the server
 * module (PageCacheHttpTest) with a real Tomcat.
 */
class PageCachePolicyTest {
    @TempDir
    Path tmp;

    private Path site(String routes, String siteCache) throws Exception {
        Path root = tmp.resolve("root");
        Path site = Files.createDirectories(root.resolve("sites/s"));
        Files.createDirectories(root.resolve("content/docs"));
        Files.writeString(root.resolve("content/docs/f.xml"), "<doc><title>file</title></doc>");
        Files.writeString(site.resolve("s.xsl"), """
                <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                    xmlns:rsp="urn:arno:response" exclude-result-prefixes="#all">
                  <xsl:template match="/">
                    <rsp:response><rsp:body method="text"><xsl:value-of select="doc('store:/docs/a.xml')/doc/title,
                        count(collection('store:/docs/')), doc('content:/docs/f.xml')/doc/title"/></rsp:body></rsp:response>
                  </xsl:template>
                </xsl:stylesheet>""");
        Files.writeString(site.resolve("site.xml"), "<site xmlns='urn:arno:site' name='s'>\n<prefix>/s</prefix>\n"
                + siteCache + "\n" + routes + "\n</site>");
        return root;
    }

    private static ArnoException compileError(Path root) {
        Throwable t = catchThrowable(() -> Sites.compile(PipelineCasesTest.config(root, true), null));
        assertThat(t).isInstanceOf(ArnoException.class);
        ArnoException e = (ArnoException) t;
        assertThat(e.code()).isEqualTo(ErrorCode.SITE_ERROR);
        return e;
    }

    @Test
    void aTimeOrSizeOfTheWrongFormIsRefusedWithFileAndLine() throws Exception {
        ArnoException e = compileError(site("<route name='r' pattern='/r'>\n<cache ttl='10 minutes'/><template xslt='s.xsl'/></route>", ""));
        assertThat(e.getMessage()).contains("site.xml").contains("10 minutes");
        assertThat(e.where().line()).isEqualTo(5);
        e = compileError(site("<route name='r' pattern='/r'><template xslt='s.xsl'/></route>", "<cache memory='64X'/>"));
        assertThat(e.getMessage()).contains("64X");
        assertThat(e.where().line()).isEqualTo(3);
    }

    @Test
    void boundsAndRoutesThatCannotCacheAreRefused() throws Exception {
        ArnoException e = compileError(site("<route name='r' pattern='/r'><template xslt='s.xsl'/></route>", "<cache memory='1K'/>"));
        assertThat(e.getMessage()).contains("too small").contains("64K");
        e = compileError(site("<route name='r' pattern='/r' methods='POST'>\n<cache/><template xslt='s.xsl'/></route>", ""));
        assertThat(e.getMessage()).contains("route 'r'").contains("does not answer GET");
        e = compileError(site("<route name='r' pattern='/r'><cache ttl='0s'/><template xslt='s.xsl'/></route>", ""));
        assertThat(e.getMessage()).contains("would keep nothing");
    }

    @Test
    void thePoliciesAreRead() throws Exception {
        Sites sites = Sites.compile(PipelineCasesTest.config(site("<route name='r' pattern='/r'>"
                + "<cache ttl='10m' max-size='2K' params='page q' vary='Accept-Language' max-age='1h'/>"
                + "<template xslt='s.xsl'/></route><route name='u' pattern='/u'><template xslt='s.xsl'/></route>",
                "<cache memory='2M' disk='0' revalidate='500ms'/>"), false), null);
        Site s = sites.site("s");
        assertThat(s.cache).isEqualTo(new CachePolicy.Site(2 << 20, 0, Duration.ofMillis(500), CachePolicy.Sources.DEFAULT,
                CachePolicy.Fragments.DEFAULT));
        assertThat(s.routes.get(0).cache).isEqualTo(new CachePolicy.Route(Duration.ofMinutes(10), 2048,
                List.of("page", "q"), List.of("Accept-Language"), Duration.ofHours(1)));
        assertThat(s.routes.get(0).cache.cacheControl()).isEqualTo("max-age=3600");
        assertThat(s.routes.get(1).cache).isNull();
        assertThat(CachePolicy.Site.defaults(false)).isEqualTo(new CachePolicy.Site(64L << 20, 1L << 30, Duration.ofSeconds(2),
                new CachePolicy.Sources(1000, 64L << 20, Duration.ofMinutes(30)), new CachePolicy.Fragments(10_000, 16L << 20)));
    }

    @Test
    void theContextCachePoliciesAreReadAndCheckedWithFileAndLine() throws Exception {
        String route = "<route name='r' pattern='/r'><template xslt='s.xsl'/></route>";
        Sites sites = Sites.compile(PipelineCasesTest.config(site(route,
                "<cache>\n<sources items='50' memory='1M' revalidate='10s'/>\n<fragments items='0'/>\n</cache>"), false), null);
        assertThat(sites.site("s").cache).isEqualTo(new CachePolicy.Site(64L << 20, 1L << 30, Duration.ofSeconds(2),
                new CachePolicy.Sources(50, 1 << 20, Duration.ofSeconds(10)), new CachePolicy.Fragments(0, 16L << 20)));
        ArnoException e = compileError(site(route, "<cache>\n<sources items='0'/>\n</cache>"));
        assertThat(e.getMessage()).contains("items=\"0\"").contains("revalidate=\"0s\"");
        assertThat(e.where().line()).isEqualTo(4);
        e = compileError(site(route, "<cache>\n<fragments items='10' memory='1K'/>\n</cache>"));
        assertThat(e.getMessage()).contains("too small");
        assertThat(e.where().line()).isEqualTo(4);
        e = compileError(site(route, "<cache>\n<fragments items='ten'/>\n</cache>"));
        assertThat(e.getMessage()).contains("ten");
        assertThat(e.where().line()).isEqualTo(4);
        e = compileError(site(route, "<cache>\n<fragments items='999999999'/>\n</cache>"));
        assertThat(e.getMessage()).contains("too many");
        e = compileError(site(route, "<cache>\n<fragments/>\n<sources/>\n</cache>"));
        assertThat(e.getMessage()).as("the order is the schema's").contains("sources");
    }

    @Test
    void theScopeRecordsEveryStoreDocumentListingAndFileThePageRead() throws Exception {
        Path root = site("<route name='r' pattern='/r'><cache/><template xslt='s.xsl'/></route>", "");
        try (Store store = Store.open(tmp.resolve("store"))) {
            long v1;
            try (WriteTransaction w = store.write()) {
                w.put("/docs/a.xml", "<doc><title>A</title></doc>".getBytes(StandardCharsets.UTF_8));
                w.put("/docs/b.xml", "<doc><title>B</title></doc>".getBytes(StandardCharsets.UTF_8));
                v1 = w.commit();
            }
            try (WriteTransaction w = store.write()) {
                w.put("/other.xml", "<doc/>".getBytes(StandardCharsets.UTF_8));
                w.commit();
            }
            Sites sites = Sites.compile(PipelineCasesTest.config(root, true), store);
            Exchange x = sites.exchange(HttpRequest.builder("GET", "/s/r").build());
            Reads reads = new Reads();
            x.record(reads);
            assertThat(x.respond().toString()).contains("A 2 file");
            List<Dependencies.Dependency> deps = reads.dependencies();
            Path file = root.resolve("content/docs/f.xml").toAbsolutePath();
            assertThat(deps).contains(
                    new Dependencies.Dependency(Reads.STORE_VIEW, "/", Long.toString(v1 + 1)),
                    new Dependencies.Dependency(Reads.STORE, "/docs/a.xml", Long.toString(v1)),
                    new Dependencies.Dependency(Reads.STORE, "/docs/b.xml", Long.toString(v1)),
                    new Dependencies.Dependency(Reads.STORE_URIS, "/docs/", Reads.hash(List.of("/docs/a.xml", "/docs/b.xml"))),
                    new Dependencies.Dependency(Reads.STORE, "/docs/f.xml", ""),
                    new Dependencies.Dependency(Reads.FILE, file.toString(), Reads.fileVersion(file)));
            assertThat(reads.uncacheable()).isNull();
        }
    }
}
