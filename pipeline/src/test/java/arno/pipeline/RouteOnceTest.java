package arno.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A page cache miss is routed once: the lookup routes the request to find the cache, and the
 * exchange that builds the page runs the route the lookup found instead of routing again.
 */
class RouteOnceTest {
    @TempDir
    static Path tmp;
    private static Sites sites;

    @BeforeAll
    static void site() throws Exception {
        Path site = Files.createDirectories(tmp.resolve("root/sites/s"));
        Files.createDirectories(tmp.resolve("root/content"));
        Files.writeString(site.resolve("s.xsl"), """
                <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                    xmlns:req="urn:arno:request" xmlns:rsp="urn:arno:response" exclude-result-prefixes="#all">
                  <xsl:template match="/" mode="a"><rsp:response><rsp:body method="text">page a of <xsl:value-of
                      select="req:request/req:route/req:variable[@name = 'n']"/></rsp:body></rsp:response></xsl:template>
                  <xsl:template match="/" mode="b"><rsp:response><rsp:body method="text">page b</rsp:body></rsp:response></xsl:template>
                </xsl:stylesheet>""");
        Files.writeString(site.resolve("site.xml"), """
                <site xmlns='urn:arno:site' name='s'><prefix>/s</prefix>
                  <route name="a" pattern="/a/{n}"><cache/><template xslt="s.xsl" mode="a"/></route>
                  <route name="b" pattern="/b"><cache/><template xslt="s.xsl" mode="b"/></route>
                </site>""");
        sites = Sites.compile(PipelineCasesTest.config(tmp.resolve("root"), false), null);
    }

    @Test
    void theExchangeOfAMissRunsTheRouteItsLookupFound() {
        HttpRequest request = HttpRequest.builder("GET", "/s/a/7").build();
        PageCaches.Lookup miss = sites.engine.caches.lookup(sites, request);
        assertThat(miss).isNotNull();
        assertThat(miss.page()).as("nothing cached yet").isNull();
        assertThat(miss.route().name()).isEqualTo("a");
        assertThat(miss.match().variables()).containsEntry("n", "7");

        Exchange x = Exchange.routed(sites, request, miss.match());
        assertThat(x.respond().getStringValue()).contains("page a of 7");
        assertThat(x.error()).isNull();
        assertThat(x.routeName()).isEqualTo("a");
    }

    /** Handed another route than its path's, the exchange runs the one handed: it does not route again. */
    @Test
    void theExchangeDoesNotRouteAgain() {
        PageCaches.Lookup other = sites.engine.caches.lookup(sites, HttpRequest.builder("GET", "/s/b").build());
        Exchange x = Exchange.routed(sites, HttpRequest.builder("GET", "/s/a/7").build(), other.match());
        assertThat(x.respond().getStringValue()).contains("page b");
        assertThat(x.routeName()).isEqualTo("b");
        // routed afresh, the same request runs its own route
        assertThat(sites.exchange(HttpRequest.builder("GET", "/s/a/7").build()).respond().getStringValue()).contains("page a of 7");
    }
}
