package arno.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.WriteTransaction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.sf.saxon.s9api.XdmNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.XMLFilterImpl;

/**
 * One store view per request, handed to each stage's run as its resolvers: every stage of a
 * request reads the version of the store the request began with, through {@code doc()},
 * {@code collection()} and {@code store:search} in XSLT and XQuery alike, even when a commit and a
 * whole other request (with its own, newer view) run on the same thread between two of its stages.
 * Real LMDB store, real Saxon.
 */
class RequestViewTest {
    @TempDir
    Path root;

    /** What {@link Between} runs in the middle of a request; set by the test, cleared after it. */
    static volatile Runnable between;

    @AfterEach
    void clear() {
        between = null;
    }

    /** A Java stage that runs {@link #between} when its input is complete, then passes it on. */
    public static final class Between implements SaxStage {
        @Override
        public ContentHandler open(RequestScope scope, ContentHandler next) {
            XMLFilterImpl f = new XMLFilterImpl() {
                @Override
                public void endDocument() throws SAXException {
                    Runnable r = between;
                    if (r != null) r.run();
                    super.endDocument();
                }
            };
            f.setContentHandler(next);
            return f;
        }
    }

    @Test
    void aRequestsStagesSeeItsViewWhileAnotherRequestOnTheSameThreadSeesANewerOne() throws Exception {
        site();
        try (Store store = Store.open(root.resolve("store"), StoreOptions.defaults().mapSize(64L << 20))) {
            put(store, "/d/a.xml", "<doc v='1' kind='x'/>");
            Sites sites = Sites.compile(PipelineCasesTest.config(root, false), store);
            List<String> nested = new ArrayList<>();
            between = () -> {
                if (!nested.isEmpty()) return; // the nested request passes here too
                nested.add("running");
                put(store, "/d/a.xml", "<doc v='2' kind='x'/>");
                put(store, "/d/b.xml", "<doc v='2' kind='x'/>");
                nested.set(0, body(sites.exchange(HttpRequest.builder("GET", "/v/read").build()).respond()));
            };
            String outer = body(sites.exchange(HttpRequest.builder("GET", "/v/read").build()).respond());
            // each: the XSLT filter's doc, collection and search | the XQuery template's
            assertThat(nested).containsExactly("2 2 2 | 2 2 2");
            assertThat(outer).isEqualTo("1 1 1 | 1 1 1");
            // and a request after both sees the new version throughout
            between = null;
            assertThat(body(sites.exchange(HttpRequest.builder("GET", "/v/read").build()).respond())).isEqualTo("2 2 2 | 2 2 2");
        }
    }

    private static void put(Store store, String path, String xml) {
        try (WriteTransaction w = store.write()) {
            w.put(path, xml.getBytes(StandardCharsets.UTF_8));
            w.commit();
        }
    }

    private static String body(XdmNode response) {
        assertThat(response.toString()).contains("status=\"200\"");
        return response.getStringValue().strip();
    }

    private void site() throws Exception {
        Path site = Files.createDirectories(root.resolve("sites/v"));
        Files.createDirectories(root.resolve("content"));
        Files.writeString(site.resolve("site.xml"), """
                <site xmlns="urn:arno:site" name="v">
                  <prefix>/v</prefix>
                  <route name="read" pattern="/read">
                    <filter xslt="first.xsl"/>
                    <filter java="arno.pipeline.RequestViewTest$Between"/>
                    <template xquery="second.xq"/>
                  </route>
                </site>
                """);
        Files.writeString(site.resolve("first.xsl"), """
                <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                    xmlns:req="urn:arno:request" xmlns:msg="urn:arno:message" xmlns:store="urn:arno:store"
                    exclude-result-prefixes="#all">
                  <xsl:template match="/req:request">
                    <xsl:copy>
                      <xsl:copy-of select="@*, node()"/>
                      <msg:attribute name="first"><xsl:value-of select="doc('store:/d/a.xml')/doc/@v,
                          count(collection('store:/d/')), count(store:search('/d/', 'doc/@kind = &quot;x&quot;'))"/></msg:attribute>
                    </xsl:copy>
                  </xsl:template>
                </xsl:stylesheet>
                """);
        Files.writeString(site.resolve("second.xq"), """
                declare namespace req = "urn:arno:request";
                declare namespace rsp = "urn:arno:response";
                declare namespace msg = "urn:arno:message";
                declare namespace store = "urn:arno:store";
                <rsp:response status="200"><rsp:body method="text">{
                  string-join((string(/req:request/msg:attribute[@name = 'first']), '|', string(doc('store:/d/a.xml')/doc/@v),
                      string(count(collection('store:/d/'))), string(count(store:search('/d/', 'doc/@kind = "x"')))), ' ')
                }</rsp:body></rsp:response>
                """);
    }
}
