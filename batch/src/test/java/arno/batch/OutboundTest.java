package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;

import arno.xml.Outbound;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xmlunit.assertj3.XmlAssert;

/**
 * URLs a batch names, and URLs its stylesheet reads, follow the one outbound policy: with the
 * default policy no private, loopback or link-local address is fetched (the cloud metadata
 * address 169.254.169.254 included), also after a redirect. And with no roots, no file at all.
 */
class OutboundTest {
    private static final Map<String, String> NS = Map.of("b", "urn:arno:batch", "err", "urn:arno:error");

    @TempDir Path tmp;

    private static String batch(String input) {
        return "<batch xmlns=\"urn:arno:batch\">\n<stylesheet><xsl:stylesheet version=\"3.0\" xmlns:xsl=\"http://www.w3.org/1999/XSL/Transform\">"
                + "<xsl:template match=\"/\"><out/></xsl:template></xsl:stylesheet></stylesheet>\n<input href=\"" + input + "\"/>\n</batch>";
    }

    @Test void privateLoopbackAndLinkLocalAddressesAreRefusedWhenSubmitted() {
        try (TestServer server = new TestServer(tmp, b -> b.outbound(Outbound.Policy.DEFAULT))) {
            TestResources.write(server.root.resolve("in/a.xml"), "<a/>");
            HttpResponse<String> metadata = server.post(batch("http://169.254.169.254/latest/meta-data/"));
            assertThat(metadata.statusCode()).isEqualTo(403);
            assertThat(metadata.body()).contains("code=\"uri-refused\"").contains("link-local").contains("line=\"3\"");

            int before = server.gets.get();
            HttpResponse<String> loopback = server.post(batch(server.url("/files/in/a.xml")));
            assertThat(loopback.statusCode()).isEqualTo(403);
            assertThat(loopback.body()).contains("code=\"uri-refused\"").contains("loopback");
            assertThat(server.gets.get()).isEqualTo(before);
        }
    }

    @Test void aStylesheetCannotFetchAPrivateAddressEither() {
        try (TestServer server = new TestServer(tmp, b -> b.outbound(Outbound.Policy.DEFAULT))) {
            TestResources.write(server.root.resolve("in/a.xml"), "<a/>");
            String job = server.submit("""
                    <batch xmlns="urn:arno:batch">
                    <stylesheet><xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
                      <xsl:template match="/"><out><xsl:copy-of select="doc('%s')"/></out></xsl:template>
                    </xsl:stylesheet></stylesheet>
                    <input href="in/a.xml"/>
                    </batch>""".formatted(server.url("/files/in/a.xml")));
            int before = server.gets.get();
            server.awaitFinished(job);
            String report = server.get(job + "/report").body();
            XmlAssert.assertThat(report).withNamespaceContext(NS).valueByXPath("//b:transformation/err:error/@code")
                    .isEqualTo("uri-refused");
            assertThat(server.gets.get()).isEqualTo(before);
        }
    }

    @Test void aRedirectIsCheckedAgainAtEveryHop() {
        // localhost is named, so allowed; the redirect goes to 127.0.0.1, which is not
        Outbound.Policy onlyLocalhost = new Outbound.Policy(Set.of("http"), List.of("localhost"), false, Duration.ofSeconds(10), 5);
        try (TestServer server = new TestServer(tmp, b -> b.outbound(onlyLocalhost))) {
            TestResources.write(server.root.resolve("in/a.xml"), "<a/>");
            String job = server.submit(batch(server.url("/files/redirect/in/a.xml")));
            assertThat(TestServer.status(server.awaitFinished(job))).isEqualTo("failed");
            String report = server.get(job + "/report").body();
            XmlAssert.assertThat(report).withNamespaceContext(NS).valueByXPath("//b:transformation/err:error/@code")
                    .isEqualTo("uri-refused");
            XmlAssert.assertThat(report).withNamespaceContext(NS).valueByXPath("//b:transformation/err:error/err:message")
                    .asString().contains("127.0.0.1").contains("not among the allowed hosts");
        }
    }

    @Test void withoutRootsABatchMayNameNoFileAndIsToldHowToAllowOne() {
        try (TestServer server = new TestServer(tmp, b -> b.roots(List.of()))) {
            HttpResponse<String> r = server.post(batch(server.root.resolve("in/a.xml").toString()));
            assertThat(r.statusCode()).isEqualTo(403);
            assertThat(r.body()).contains("code=\"outside-roots\"").contains("allows batches no folder at all")
                    .contains("batch roots");
        }
    }
}
