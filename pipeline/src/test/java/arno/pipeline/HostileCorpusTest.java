package arno.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import arno.testkit.EmbeddedTomcat;
import arno.xml.ErrorCode;
import arno.xml.HostileCorpus;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import net.sf.saxon.s9api.XdmNode;
import org.apache.catalina.startup.Tomcat;
import org.apache.commons.io.FileUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The one hostile corpus ({@link HostileCorpus}) through the pipeline's entry points: as request
 * bodies over real HTTP (the test kit's embedded Tomcat, the real servlet), and as content documents read by
 * doc() and collection(). Every case is refused (400 for a body, a failed stage for a document)
 * or accepted with its text, as the corpus says, and nothing is ever fetched from the leak URL or
 * read from the leak file.
 */
class HostileCorpusTest {
    static final Path BASIC = Path.of("src/test/resources/roots/basic");
    static HostileCorpus.Leak leak;
    static EmbeddedTomcat tomcat;
    static int port;
    static Path content;
    static Sites documents;
    static final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() throws Exception {
        leak = new HostileCorpus.Leak();

        // Real HTTP: the servlet over the basic root, with a body limit above the 10 MB attribute.
        SiteRegistry registry = SiteRegistry.start(PipelineCasesTest.config(BASIC, true).withBodyLimit(32L << 20), null);
        tomcat = EmbeddedTomcat.builder().servlet("/", new ArnoServlet(registry, 2, 100)).start();
        port = tomcat.port();

        // Documents: every case as a content file, and alone in a folder for collection().
        content = Files.createTempDirectory("arno-hostile");
        for (HostileCorpus.Case c : corpus()) {
            Files.createDirectories(content.resolve("one").resolve(c.name()));
            Files.write(content.resolve(c.name() + ".xml"), c.xml());
            Files.write(content.resolve("one").resolve(c.name()).resolve("doc.xml"), c.xml());
        }
        documents = Sites.compile(PipelineCasesTest.config(BASIC, true).withContent(content), null);
    }

    @AfterAll
    static void stop() throws Exception {
        int leaked = leak.requests();
        // Everything is stopped and removed first, so a failure below leaves nothing running behind it.
        tomcat.close();
        leak.close();
        FileUtils.deleteQuietly(content.toFile());
        assertThat(leaked).as("requests that reached the leak URL").isZero();
    }

    static List<HostileCorpus.Case> corpus() {
        return leak.cases();
    }

    static Stream<HostileCorpus.Case> cases() {
        return corpus().stream();
    }

    @ParameterizedTest
    @MethodSource("cases")
    void asARequestBodyOverHttp(HostileCorpus.Case c) throws Exception {
        HttpResponse<String> r = client.send(java.net.http.HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/alpha/echo"))
                .header("Content-Type", "application/xml").POST(BodyPublishers.ofByteArray(c.xml()))
                .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.body()).doesNotContain("LEAKED");
        switch (c.outcome()) {
            case REFUSED, MALFORMED -> {
                assertThat(r.statusCode()).as(c.name()).isEqualTo(400);
                String code = c.outcome() == HostileCorpus.Outcome.REFUSED ? "refused-xml" : "malformed-xml";
                assertThat(r.body()).as(c.name()).contains("<p id=\"error-code\">" + code + "</p>");
            }
            case ACCEPTED -> {
                assertThat(r.statusCode()).as(c.name() + ": " + r.body()).isEqualTo(200);
                XdmNode echo = documents.processor().newDocumentBuilder()
                        .build(new javax.xml.transform.stream.StreamSource(new java.io.StringReader(r.body())));
                assertThat(echo.getStringValue()).as(c.name()).isEqualTo(c.text());
            }
        }
    }

    /**
     * Every case as a site's site.xml: the server refuses to start with SITE_ERROR naming the
     * file; refused and malformed ones for the policy's reason, accepted ones only because they are
     * no site (the schema's complaint, not the parser's), and nothing is fetched.
     */
    @ParameterizedTest
    @MethodSource("cases")
    void asASiteXml(HostileCorpus.Case c) throws Exception {
        Path root = Files.createTempDirectory("arno-hostile-site");
        try {
            Path siteXml = Files.createDirectories(root.resolve("sites/" + c.name())).resolve("site.xml");
            Files.write(siteXml, c.xml());
            Files.createDirectories(root.resolve("content"));
            int before = leak.requests();
            Throwable t = org.assertj.core.api.Assertions.catchThrowable(
                    () -> Sites.compile(PipelineCasesTest.config(root, true), null));
            assertThat(t).as(c.name()).isInstanceOf(arno.xml.ArnoException.class);
            arno.xml.ArnoException e = (arno.xml.ArnoException) t;
            assertThat(e.code()).isEqualTo(ErrorCode.SITE_ERROR);
            assertThat(e.getMessage()).contains("site.xml").doesNotContain("LEAKED");
            switch (c.outcome()) {
                // The corpus's root is no site element: when its payload comes after the root's start
                // tag, the schema's complaint about the root stops the parse before the payload.
                case REFUSED -> assertThat(e.getMessage()).as(e.describe()).satisfiesAnyOf(
                        m -> assertThat(arno.xml.XmlPolicy.refusal(e)).isNotNull()
                                .satisfies(r -> assertThat(r.kind()).isEqualTo(c.kind())),
                        m -> assertThat(m).contains("cvc-elt.1.a"));
                case MALFORMED -> assertThat(arno.xml.XmlPolicy.translate(e.getCause(), "site.xml").code())
                        .as(e.describe()).isEqualTo(ErrorCode.MALFORMED_XML);
                case ACCEPTED -> assertThat(arno.xml.XmlPolicy.refusal(e)).as(e.describe()).isNull();
            }
            assertThat(leak.requests()).as("requests to the leak").isEqualTo(before);
        } finally {
            FileUtils.deleteQuietly(root.toFile());
        }
    }

    /** A well-formed site.xml whose hostile part sits where the schema allows text: the policy refuses it. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
        "<!ENTITY x SYSTEM 'LEAK'>|&x;|EXTERNAL_ENTITY",
        "<!ENTITY % p SYSTEM 'LEAK'> %p;|x|EXTERNAL_ENTITY",
        "<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;'><!ENTITY c '&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;'>"
            + "<!ENTITY d '&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;'><!ENTITY e '&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;'>"
            + "<!ENTITY f '&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;'>|&f;|ENTITY_EXPANSIONS"})
    void asASiteShapedSiteXml(String declarations, String value, arno.xml.XmlPolicy.Kind kind) throws Exception {
        Path root = Files.createTempDirectory("arno-hostile-site");
        try {
            Path siteXml = Files.createDirectories(root.resolve("sites/s")).resolve("site.xml");
            Files.writeString(siteXml, "<!DOCTYPE site [" + declarations.replace("LEAK", leak.url()) + "]>"
                    + "<site xmlns='urn:arno:site' name='s'><prefix>/s</prefix><param name='p'>" + value + "</param></site>");
            Files.createDirectories(root.resolve("content"));
            int before = leak.requests();
            Throwable t = org.assertj.core.api.Assertions.catchThrowable(
                    () -> Sites.compile(PipelineCasesTest.config(root, true), null));
            assertThat(t).isInstanceOf(arno.xml.ArnoException.class);
            assertThat(((arno.xml.ArnoException) t).code()).isEqualTo(ErrorCode.SITE_ERROR);
            assertThat(arno.xml.XmlPolicy.refusal(t)).as(((arno.xml.ArnoException) t).describe()).isNotNull()
                    .satisfies(r -> assertThat(r.kind()).isEqualTo(kind));
            assertThat(leak.requests()).isEqualTo(before);
        } finally {
            FileUtils.deleteQuietly(root.toFile());
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void asADocumentReadByDocAndCollection(HostileCorpus.Case c) throws Exception {
        for (String read : List.of("doc?uri=content:/" + c.name() + ".xml",
                "doc?uri=" + content.resolve(c.name() + ".xml").toUri(),
                "collection?uri=content:/one/" + c.name() + "/")) {
            Exchange x = documents.exchange(HttpRequest.builder("GET", "/alpha/read/" + read).build());
            XdmNode response = x.respond();
            assertThat(response.toString()).doesNotContain("LEAKED");
            if (c.outcome() == HostileCorpus.Outcome.ACCEPTED) {
                assertThat(x.error()).as(read + ": " + response).isNull();
                if (read.startsWith("doc")) {
                    assertThat(documents.processor().newXPathCompiler().evaluate("string(//read)", response).toString())
                            .as(read).isEqualTo(c.text());
                }
            } else {
                assertThat(x.error()).as(read).isNotNull();
                assertThat(x.error().code()).as(read).isEqualTo(ErrorCode.STAGE_ERROR);
                String code = c.outcome() == HostileCorpus.Outcome.REFUSED ? "refused-xml" : "malformed-xml";
                assertThat(x.error().details()).as(read + ": " + x.error().describe())
                        .anySatisfy(d -> assertThat(d.code()).isEqualTo(code));
            }
        }
    }
}
