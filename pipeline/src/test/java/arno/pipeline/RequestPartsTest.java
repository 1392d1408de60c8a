package arno.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A page built for the page cache records exactly which parts of the HTTP request it read from
 * req:request ({@link WatchedRequest}), however its XPath reaches them, and the page cache key
 * made of them ({@link RequestParts}) tells requests apart by nothing else and never holds a
 * credential. The page cache on the wire is tested in the server module (PageCacheHttpTest).
 */
class RequestPartsTest {
    @TempDir
    static Path tmp;
    private static Sites sites;

    /**
     * Each case: an expression the page writes out, and the request parts that reading it reads
     * (space-separated). The request ({@link #request}) has a query, nine headers and two cookies.
     */
    private static final String[][] CASES = {
        {"'nothing of the request'", ""},
        {"req:request/@id, req:request/@time, req:request/@method, req:request/@development", ""},
        {"req:request/req:site/@name, req:request/req:site/req:param, req:request/req:path/@value,"
                + " req:request/req:path/req:segment, req:request/req:route/req:variable", ""},
        {"req:request/@host", "@host"},
        {"req:request/@port, req:request/@scheme", "@port @scheme"},
        {"req:request/@url", "@url"},
        {"req:request/@remote-address", "@remote-address"},
        {"req:request/@*[name() = 'protocol']", "@protocol"},
        {"req:request/req:headers/req:header[@name = 'x-forwarded-host']", "header-names header:x-forwarded-host"},
        {"req:request/req:headers/req:header[@name = 'accept-language'] = 'fr'", "header-names header:accept-language"},
        {"exists(req:request/req:headers/req:header[@name = 'x-absent'])", "header-names"},
        {"count(req:request/req:headers/req:header)", "header-names"},
        {"req:request/req:headers/req:header[1]/@name", "header-names"},
        {"req:request/req:headers/req:header[@name = 'authorization']", "header-names header:authorization"},
        {"string(req:request/req:headers)", "headers"},
        {"for $h in req:request/req:headers/req:header return string($h)", "headers"},
        {"exists(req:request/req:cookies/req:cookie[@name = 'session'])", "cookie-names"},
        {"req:request/req:cookies/req:cookie[@name = 'theme']", "cookie-names cookie:theme"},
        {"req:request/req:parameters/req:parameter[@name = 'p']/req:value", "parameter-names parameter:p"},
        {"count(req:request/req:parameters/req:parameter[@name = 'p']/req:value)", "parameter-names parameter:p"},
        {"req:request/req:query", "query"},
        {"exists(req:request/req:query)", "query"},
        {"count(req:request/req:cookies/preceding-sibling::*)", "query"},
        {"count(req:request/req:site/following-sibling::*), count(//req:site/following-sibling::req:route)", "query"},
        {"count(//req:header)", "header-names"},
        {"count(//*:nothing-here), count(//req:site/following::*:nothing-here)", ""},
        {"count(//text())", "query parameters headers cookies"},
        {"string(/)", "query parameters headers cookies"},
        {"serialize(req:request/req:cookies)", "cookies"},
    };

    @BeforeAll
    static void site() throws Exception {
        Path site = Files.createDirectories(tmp.resolve("root/sites/s"));
        Files.createDirectories(tmp.resolve("root/content"));
        StringBuilder xsl = new StringBuilder("""
                <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                    xmlns:req="urn:arno:request" xmlns:rsp="urn:arno:response" exclude-result-prefixes="#all">
                """);
        StringBuilder routes = new StringBuilder();
        for (int i = 0; i < CASES.length; i++) {
            xsl.append("<xsl:template match='/' mode='c").append(i).append("'><rsp:response><rsp:body method='text'>")
                    .append("<xsl:value-of select=\"").append(CASES[i][0]).append("\"/></rsp:body></rsp:response></xsl:template>\n");
            routes.append("<route name='c").append(i).append("' pattern='/c").append(i).append("'><template xslt='s.xsl' mode='c")
                    .append(i).append("'/></route>\n");
        }
        xsl.append("""
                <xsl:template match="/" mode="copy">
                  <rsp:response><rsp:body method="xml"><xsl:copy-of select="req:request/req:headers/req:header[@name = 'accept-language']"/></rsp:body></rsp:response>
                </xsl:template>
                <xsl:template match="/" mode="builtin">
                  <rsp:response><rsp:body method="text"><xsl:apply-templates select="req:request/req:cookies" mode="text"/></rsp:body></rsp:response>
                </xsl:template>
                </xsl:stylesheet>""");
        Files.writeString(site.resolve("s.xsl"), xsl);
        // A filter that passes the request on, the usual way: an identity copy with one more msg:attribute.
        Files.writeString(site.resolve("pass.xsl"), """
                <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                    xmlns:req="urn:arno:request" xmlns:msg="urn:arno:message">
                  <xsl:mode on-no-match="shallow-copy"/>
                  <xsl:template match="req:request">
                    <xsl:copy><xsl:apply-templates select="@*, node()"/><msg:attribute name="seen">yes</msg:attribute></xsl:copy>
                  </xsl:template>
                </xsl:stylesheet>""");
        Files.writeString(site.resolve("q.xq"), """
                declare namespace req = "urn:arno:request";
                declare namespace rsp = "urn:arno:response";
                <rsp:response><rsp:body method="text">{ /req:request/req:headers/req:header[@name = 'accept-language']/string() }</rsp:body></rsp:response>
                """);
        routes.append("""
                <route name="xquery" pattern="/xquery"><template xquery="q.xq"/></route>
                <route name="java" pattern="/java"><filter java="arno.pipeline.StampStage"/><template xslt="s.xsl" mode="c3"/></route>
                <route name="filtered" pattern="/filtered"><filter xslt="pass.xsl"/><template xslt="s.xsl" mode="c3"/></route>
                <route name="copy" pattern="/copy"><template xslt="s.xsl" mode="copy"/></route>
                <route name="builtin" pattern="/builtin"><template xslt="s.xsl" mode="builtin"/></route>
                <route name="cached" pattern="/cached"><cache params="p" vary="Accept-Language"/><template xslt="s.xsl" mode="c0"/></route>
                <route name="bare" pattern="/bare"><cache/><template xslt="s.xsl" mode="c0"/></route>
                """);
        Files.writeString(site.resolve("site.xml"), "<site xmlns='urn:arno:site' name='s'><prefix>/s</prefix>\n" + routes + "</site>");
        sites = Sites.compile(PipelineCasesTest.config(tmp.resolve("root"), false), null);
    }

    /** A request for {@code path} with a query, nine headers (credentials among them) and two cookies. */
    private static HttpRequest request(String path) {
        return HttpRequest.builder("GET", "/s" + path + "?p=1&p=2&q=x").host("example.org", 8080)
                .header("Accept", "text/html").header("Accept-Language", "fr").header("X-Forwarded-Host", "evil.example")
                .header("User-Agent", "test").header("Authorization", "Basic c2VjcmV0").header("Cookie", "session=s3cret; theme=dark")
                .header("X-A", "a").header("X-B", "b").header("X-C", "c").build();
    }

    /** What the page at {@code path} read of {@link #request}, checking it answered. */
    private static Set<String> read(String path) {
        Exchange x = sites.exchange(request(path));
        Reads reads = new Reads();
        x.record(reads);
        x.respond();
        assertThat(x.error()).as(path).isNull();
        return reads.requestParts();
    }

    private static Set<String> parts(String spaced) {
        return spaced.isEmpty() ? Set.of() : new TreeSet<>(Arrays.asList(spaced.split(" ")));
    }

    @Test
    void everyWayOfReadingTheRequestIsRecordedAndNothingElse() {
        List<String> wrong = new java.util.ArrayList<>();
        for (int i = 0; i < CASES.length; i++) {
            Set<String> read = read("/c" + i);
            if (!read.equals(parts(CASES[i][1]))) wrong.add(CASES[i][0] + "\n    read " + read + ", expected " + parts(CASES[i][1]));
        }
        assertThat(wrong).as("cases whose reads are recorded wrongly").isEmpty();
    }

    @Test
    void xqueryTemplatesCopiesAndBuiltInRulesAreRecordedToo() {
        assertThat(read("/xquery")).isEqualTo(parts("header-names header:accept-language"));
        assertThat(read("/copy")).isEqualTo(parts("header-names header:accept-language"));
        // The built-in rules copy text to the output: the page shows every cookie.
        assertThat(read("/builtin")).isEqualTo(parts("cookie-names cookie:session cookie:theme"));
        // After a Java filter, whose SAX events are not watched, the template's reads still are.
        assertThat(read("/java")).isEqualTo(parts("@host"));
    }

    @Test
    void aFilterThatCopiesTheRequestOnReadsAllOfIt() {
        // Each text node is copied on its own: nine headers are all of them, two cookies each one.
        assertThat(read("/filtered")).isEqualTo(parts("@host @port @protocol @remote-address @scheme @url query"
                + " parameter-names parameter:p parameter:q headers cookie-names cookie:session cookie:theme"));
    }

    // ----- The key

    private static Route route(String name) {
        for (Route r : sites.site("s").routes) if (r.name().equals(name)) return r;
        throw new AssertionError(name);
    }

    private static String key(Set<String> parts, HttpRequest request) {
        Route route = route("cached");
        String base = PageCaches.key("s", route, "/cached", request);
        return PageCaches.withParts(base, parts, route, request);
    }

    private static HttpRequest get(String target, String... headers) {
        HttpRequest.Builder b = HttpRequest.builder("GET", target);
        for (int i = 0; i < headers.length; i += 2) b.header(headers[i], headers[i + 1]);
        return b.build();
    }

    @Test
    void noValueCanPassForAnotherInTheKey() {
        Route route = route("cached");
        assertThat(PageCaches.key("s", route, "/cached", get("/s/cached?p=a%26q%3Db")))
                .isNotEqualTo(PageCaches.key("s", route, "/cached", get("/s/cached?p=a&p=q%3Db")));
        assertThat(PageCaches.key("s", route, "/cached", get("/s/cached", "Accept-Language", "a, b")))
                .isNotEqualTo(PageCaches.key("s", route, "/cached", get("/s/cached", "Accept-Language", "a", "Accept-Language", "b")));
        Set<String> host = parts("@host header:x-forwarded-host");
        assertThat(key(host, get("/s/cached", "X-Forwarded-Host", "a.example"))).isNotEqualTo(key(host, get("/s/cached", "X-Forwarded-Host", "b.example")))
                .isNotEqualTo(key(host, get("/s/cached")));
        assertThat(key(host, get("/s/cached", "X-Forwarded-Host", "a.example"))).isEqualTo(key(host, get("/s/cached", "X-Forwarded-Host", "a.example", "X-Other", "1")));
        assertThat(key(Set.of(), get("/s/cached", "X-Forwarded-Host", "a.example"))).isEqualTo(key(Set.of(), get("/s/cached")));
        // However a set of parts was made (learned, or read back after a restart), one key.
        HttpRequest r = get("/s/cached?p=1", "X-Forwarded-Host", "a.example");
        assertThat(key(new java.util.LinkedHashSet<>(List.of("@host", "header:x-forwarded-host", "parameter-names")), r))
                .isEqualTo(key(new java.util.LinkedHashSet<>(List.of("parameter-names", "header:x-forwarded-host", "@host")), r));
        assertThat(PageCaches.withParts("base", parts("parameter:p"), route, get("/s/cached?p=%zz"))).as("a bad query").isNull();
    }

    @Test
    void theKeyHoldsNoCredentialOnlyWhetherThereIsOne() {
        Set<String> all = parts("header:authorization cookie:session cookie-names header-names headers cookies");
        String alice = key(all, get("/s/cached", "Authorization", "Basic YWxpY2U=", "Cookie", "session=alice-secret"));
        String bob = key(all, get("/s/cached", "Authorization", "Basic Ym9i", "Cookie", "session=bob-secret"));
        assertThat(alice).doesNotContain("YWxpY2U").doesNotContain("alice-secret").isEqualTo(bob)
                .isNotEqualTo(key(all, get("/s/cached")));
    }

    @Test
    void whatTheRouteListsUnderParamsAndVaryStopsThePresenceOfOthersMattering() {
        Set<String> names = parts("parameter-names header-names");
        assertThat(key(names, get("/s/cached?p=1&utm_source=x", "X-Other", "1"))).isEqualTo(key(names, get("/s/cached?p=1")));
        assertThat(key(names, get("/s/cached", "Authorization", "Basic eA=="))).as("but a credential's presence does")
                .isNotEqualTo(key(names, get("/s/cached")));
        Route plain = route("bare");
        HttpRequest one = get("/s/bare?p=1");
        HttpRequest two = get("/s/bare?p=1&utm_source=x", "X-Other", "1");
        assertThat(PageCaches.withParts("b", names, plain, one)).isNotEqualTo(PageCaches.withParts("b", names, plain, two));
    }

    @Test
    void aPageThatReadACredentialOrCookieTheRequestCarriedIsNotKept() {
        CachePolicy.Route policy = route("cached").cache;
        HttpRequest signedIn = get("/s/cached", "Authorization", "Basic eA==", "Cookie", "session=x; theme=dark");
        assertThat(RequestParts.refusal(parts("header:authorization"), signedIn, policy)).contains("authorization header");
        assertThat(RequestParts.refusal(parts("cookie:theme"), signedIn, policy)).contains("cookie 'theme'");
        assertThat(RequestParts.refusal(parts("cookies"), signedIn, policy)).contains("every cookie");
        assertThat(RequestParts.refusal(parts("headers"), signedIn, policy)).contains("every request header");
        assertThat(RequestParts.refusal(parts("header:cookie"), signedIn, policy)).contains("cookie header");
        // Looking whether there is one, or reading one the request did not carry, is no credential.
        assertThat(RequestParts.refusal(parts("cookie-names header-names cookie:other @host"), signedIn, policy)).isNull();
        assertThat(RequestParts.refusal(parts("header:authorization cookies headers"), get("/s/cached"), policy)).isNull();
        // A route that varies on the header keys on its value, so it may keep the page.
        CachePolicy.Route declared = new CachePolicy.Route(null, 1 << 20, List.of(), List.of("Cookie", "Authorization"), (Duration) null);
        assertThat(RequestParts.refusal(parts("header:authorization cookie:theme cookies"), signedIn, declared)).isNull();
    }

    @Test
    void manyValuesOfOneKindAreAllOfIt() {
        Set<String> nine = new TreeSet<>();
        for (int i = 0; i < 9; i++) nine.add("header:h" + i);
        nine.add("header-names");
        nine.add("cookie:a");
        assertThat(RequestParts.coalesce(nine)).isEqualTo(parts("headers cookie:a"));
        assertThat(RequestParts.coalesce(parts("cookies cookie:a cookie-names @host"))).isEqualTo(parts("cookies @host"));
        RequestParts.Learned learned = new RequestParts.Learned("code", Set.of());
        assertThat(learned.add(parts("@host"))).isEqualTo(parts("@host"));
        assertThat(learned.add(Set.of())).isEqualTo(parts("@host"));
        assertThat(learned.add(nine)).isEqualTo(parts("@host headers cookie:a"));
        assertThat(learned.get().stream().collect(Collectors.joining(" "))).isEqualTo("@host cookie:a headers");
    }
}
