package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;

import arno.testkit.Http;
import arno.xml.HostileCorpus;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xmlunit.assertj3.XmlAssert;

/**
 * The one hostile corpus through every entry point of the batch service: as the batch document
 * itself, as inputs, and as documents a stylesheet reads with doc(). Each case ends as the corpus
 * says (refused, malformed or accepted with its text), and nothing is fetched from the leak.
 */
class HostileCorpusTest {
    private static final Map<String, String> NS = Map.of("b", "urn:arno:batch", "err", "urn:arno:error");

    @TempDir static Path tmp;
    static TestServer server;
    static HostileCorpus.Leak leak;
    static List<HostileCorpus.Case> corpus;

    @BeforeAll static void start() throws Exception {
        leak = new HostileCorpus.Leak();
        server = new TestServer(tmp);
        corpus = leak.cases();
        for (HostileCorpus.Case c : corpus) {
            Path file = server.root.resolve("hostile/" + c.name() + ".xml");
            Files.createDirectories(file.getParent());
            Files.write(file, c.xml());
            TestResources.write(server.root.resolve("trigger/" + c.name() + ".xml"), "<t href=\"../hostile/" + c.name() + ".xml\"/>");
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }

    @AfterAll static void stop() throws Exception {
        server.close();
        leak.close();
    }

    @Test void asTheBatchDocument() {
        for (HostileCorpus.Case c : corpus) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(server.url("/batch/jobs")))
                    .header("Content-Type", "application/xml")
                    .header("Authorization", Http.basic(TestServer.USER + ":" + TestServer.PASSWORD))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(c.xml())).build();
            HttpResponse<String> r = server.send(request);
            assertThat(r.statusCode()).as(c.name()).isEqualTo(400);
            String expected = switch (c.outcome()) {
                case REFUSED -> "refused-xml";
                case MALFORMED -> "malformed-xml";
                case ACCEPTED -> "invalid-xml"; // parsed, then found not to be a batch
            };
            XmlAssert.assertThat(r.body()).withNamespaceContext(NS).valueByXPath("/err:error/@code").as(c.name()).isEqualTo(expected);
            assertThat(r.body()).as(c.name()).doesNotContain("LEAKED");
        }
        assertThat(leak.requests()).as("requests to the leak").isZero();
    }

    @Test void asInputsAndAsDocumentsTheStylesheetReads() {
        StringBuilder inputs = new StringBuilder();
        StringBuilder triggers = new StringBuilder();
        for (HostileCorpus.Case c : corpus) {
            inputs.append("<input href=\"hostile/").append(c.name()).append(".xml\" output=\"out/in-").append(c.name()).append(".xml\"/>\n");
            triggers.append("<input href=\"trigger/").append(c.name()).append(".xml\" output=\"out/doc-").append(c.name()).append(".xml\"/>\n");
        }
        String stylesheet = "<stylesheet><xsl:stylesheet version=\"3.0\" xmlns:xsl=\"http://www.w3.org/1999/XSL/Transform\">"
                + "<xsl:template match=\"/\"><out><xsl:value-of select=\"if (t) then string(doc(resolve-uri(t/@href, base-uri(t)))) else string(.)\"/></out></xsl:template>"
                + "</xsl:stylesheet></stylesheet>\n";
        String job = server.submit("<batch xmlns=\"urn:arno:batch\" parallelism=\"1\">\n" + stylesheet + inputs + triggers + "</batch>");
        server.awaitFinished(job);
        String report = server.get(job + "/report").body();
        assertThat(report).doesNotContain("LEAKED");
        for (int i = 0; i < corpus.size() * 2; i++) {
            HostileCorpus.Case c = corpus.get(i % corpus.size());
            String entry = "/b:report/b:transformation[@index='" + (i + 1) + "']";
            String label = (i < corpus.size() ? "input " : "doc() ") + c.name();
            switch (c.outcome()) {
                case REFUSED, MALFORMED -> XmlAssert.assertThat(report).withNamespaceContext(NS)
                        .valueByXPath(entry + "/err:error/@code").as(label)
                        .isEqualTo(c.outcome() == HostileCorpus.Outcome.REFUSED ? "refused-xml" : "malformed-xml");
                case ACCEPTED -> {
                    XmlAssert.assertThat(report).withNamespaceContext(NS).valueByXPath(entry + "/@status").as(label).isEqualTo("ok");
                    Path out = server.root.resolve("out/" + (i < corpus.size() ? "in-" : "doc-") + c.name() + ".xml");
                    XmlAssert.assertThat(out.toFile()).valueByXPath("/*").as(label + ": " + read(out)).isEqualTo(c.text());
                }
            }
        }
        assertThat(leak.requests()).as("requests to the leak").isZero();
    }
}
