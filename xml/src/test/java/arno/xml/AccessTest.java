package arno.xml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.xml.transform.stream.StreamSource;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.XPathCompiler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Roots, the fetch policy and their installation on Saxon, each against real files, sockets and Saxon. */
class AccessTest {
    @TempDir Path tmp;
    Path root;
    Path secret;
    HttpServer server;
    final AtomicInteger hits = new AtomicInteger();

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createDirectories(tmp.resolve("root"));
        secret = Files.writeString(tmp.resolve("secret.txt"), "SECRET");
        Files.writeString(root.resolve("a.xml"), "<a>inside</a>");
        Files.writeString(root.resolve("b.xml"), "<b/>");
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/doc", x -> {
            hits.incrementAndGet();
            byte[] body = "<doc>remote</doc>".getBytes();
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        server.createContext("/hop", x -> {
            hits.incrementAndGet();
            x.getResponseHeaders().add("Location", "http://127.0.0.1:" + server.getAddress().getPort() + "/doc");
            x.sendResponseHeaders(302, -1);
            x.close();
        });
        server.start();
    }

    @AfterEach
    void tearDown() {
        server.stop(0);
    }

    private String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    private XPathCompiler xpath(Outbound.Policy policy) {
        Processor p = new Processor(false);
        new Access(FileRoots.of(List.of(root)), FileRoots.none(), new Outbound(policy), XmlPolicy.DEFAULT).install(p.getUnderlyingConfiguration());
        XPathCompiler c = p.newXPathCompiler();
        c.setBaseURI(root.toUri());
        return c;
    }

    private String eval(XPathCompiler c, String expr) throws Exception {
        return c.evaluate(expr, null).toString();
    }

    @Test
    void documentsInsideTheRootAreRead() throws Exception {
        XPathCompiler c = xpath(Outbound.Policy.DEFAULT);
        assertThat(eval(c, "string(doc('a.xml'))")).isEqualTo("inside");
        assertThat(eval(c, "count(collection('" + root.toUri() + "'))")).isEqualTo("2");
        assertThat(eval(c, "string-join(uri-collection('" + root.toUri() + "') ! tokenize(., '/')[last()], ',')")).isEqualTo("a.xml,b.xml");
    }

    @Test
    void nothingOutsideTheRootIsRead() {
        XPathCompiler c = xpath(Outbound.Policy.DEFAULT);
        for (String expr : List.of("doc('" + secret.toUri() + "')", "unparsed-text('" + secret.toUri() + "')",
                "unparsed-text('../secret.txt')", "doc('file:///etc/passwd')", "collection('file:///etc/')",
                "uri-collection('" + tmp.toUri() + "')", "json-doc('" + secret.toUri() + "')", "collection()")) {
            assertThatThrownBy(() -> eval(c, "string-join(" + expr + " ! string(.))"), expr)
                    .satisfies(t -> assertThat(String.valueOf(t.getMessage())).doesNotContain("SECRET")
                            .containsAnyOf("outside the allowed folders", "cannot be read", "No default collection"));
        }
    }

    @Test
    void aLinkPlantedUnderTheRootLeadsNowhere() throws Exception {
        Path link = root.resolve("link.txt");
        try {
            Files.createSymbolicLink(link, secret);
        } catch (UnsupportedOperationException | java.io.IOException e) {
            return; // a file system without links has nothing to check
        }
        assertThatThrownBy(() -> FileRoots.of(List.of(root)).confine(link, "text")).isInstanceOf(ArnoException.class)
                .satisfies(t -> assertThat(((ArnoException) t).code()).isEqualTo(ErrorCode.OUTSIDE_ROOTS));
        assertThat(FileRoots.of(List.of(root)).confine(root.resolve("sub/../a.xml"), "x")).isEqualTo(root.toRealPath().resolve("a.xml"));
    }

    /** parse-xml() builds its own source: it must still parse by the policy. */
    @Test
    void parseXmlGoesThroughThePolicy() {
        XPathCompiler c = xpath(Outbound.Policy.DEFAULT);
        String hostile = "parse-xml('<!DOCTYPE a [<!ENTITY x SYSTEM \"" + secret.toUri() + "\">]><a>&x;</a>')";
        assertThatThrownBy(() -> eval(c, "string(" + hostile + ")"))
                .satisfies(t -> assertThat(String.valueOf(t.getMessage())).doesNotContain("SECRET"));
        // Saxon folds parse-xml()'s cause into its message, so the words are all that is left of the type;
        // the depth limit is the policy's own (the JDK parser has none), so this holds only with the policy.
        assertThatThrownBy(() -> eval(c, "string(parse-xml('<a>' || string-join((1 to 2000) ! '<b>', '') || '</a>'))"))
                .hasMessageContaining("elements nest deeper than the limit of 1000");
        assertThatThrownBy(() -> eval(c, "string(parse-xml-fragment('<!DOCTYPE a [<!ENTITY x SYSTEM \"" + secret.toUri()
                + "\">]><a>&x;</a>'))")).satisfies(t -> assertThat(String.valueOf(t.getMessage())).doesNotContain("SECRET"));
    }

    @Test
    void theEnvironmentIsInvisible() throws Exception {
        assertThat(eval(xpath(Outbound.Policy.DEFAULT), "count(available-environment-variables())")).isEqualTo("0");
        assertThat(eval(xpath(Outbound.Policy.DEFAULT), "string(environment-variable('PATH'))")).isEmpty();
    }

    @Test
    void privateAddressesAreRefusedUnlessAllowed() throws Exception {
        assertThatThrownBy(() -> eval(xpath(Outbound.Policy.DEFAULT), "string(doc('" + url("/doc") + "'))"))
                .hasMessageContaining("loopback");
        assertThat(hits).hasValue(0);
        assertThat(eval(xpath(Outbound.Policy.DEFAULT.allowingPrivate()), "string(doc('" + url("/doc") + "'))")).isEqualTo("remote");
        Outbound.Policy named = new Outbound.Policy(Outbound.Policy.DEFAULT.schemes(), List.of("127.0.0.1"), false,
                Outbound.Policy.DEFAULT.timeout(), 5);
        assertThat(eval(xpath(named), "string(doc('" + url("/doc") + "'))")).isEqualTo("remote");
    }

    @Test
    void everyAddressKindIsClassified() throws Exception {
        for (String a : List.of("127.0.0.1", "::1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254",
                "fe80::1", "fd00::1", "100.64.0.1", "0.0.0.0", "224.0.0.1")) {
            assertThat(Outbound.privateKind(InetAddress.getByName(a))).as(a).isNotNull();
        }
        for (String a : List.of("93.184.216.34", "2606:4700::1111", "8.8.8.8")) {
            assertThat(Outbound.privateKind(InetAddress.getByName(a))).as(a).isNull();
        }
        Outbound o = new Outbound(Outbound.Policy.DEFAULT);
        assertThatThrownBy(() -> o.check(URI.create("http://169.254.169.254/latest/meta-data/"), "input"))
                .satisfies(t -> assertThat(((ArnoException) t).code()).isEqualTo(ErrorCode.URI_REFUSED))
                .hasMessageContaining("link-local");
        assertThatThrownBy(() -> o.check(URI.create("ftp://example.org/x"), "input")).hasMessageContaining("scheme 'ftp'");
    }

    @Test
    void redirectsAreCheckedAtEveryHop() throws Exception {
        // The named host may be fetched; the redirect target (the same server by another name) may not.
        Outbound.Policy onlyLocalhostName = new Outbound.Policy(Outbound.Policy.DEFAULT.schemes(), List.of("localhost"), false,
                Outbound.Policy.DEFAULT.timeout(), 5);
        Outbound o = new Outbound(onlyLocalhostName);
        URI start = URI.create("http://localhost:" + server.getAddress().getPort() + "/hop");
        assertThatThrownBy(() -> o.getBytes(start, "input")).hasMessageContaining("not among the allowed hosts");
        assertThat(hits).hasValue(1);
        assertThat(new String(new Outbound(Outbound.Policy.DEFAULT.allowingPrivate()).getBytes(URI.create(url("/hop")), "input")))
                .isEqualTo("<doc>remote</doc>");
    }

    @Test
    void parsedDocumentsGoThroughThePolicy() throws Exception {
        Files.writeString(root.resolve("evil.xml"), "<!DOCTYPE a [<!ENTITY x SYSTEM \"" + secret.toUri() + "\">]><a>&x;</a>");
        assertThatThrownBy(() -> eval(xpath(Outbound.Policy.DEFAULT), "string(doc('evil.xml'))"))
                .satisfies(t -> assertThat(XmlPolicy.refusal(t).kind()).isEqualTo(XmlPolicy.Kind.EXTERNAL_ENTITY))
                .satisfies(t -> assertThat(String.valueOf(t.getMessage())).doesNotContain("SECRET"));
        // and a stylesheet's static variable at compile time
        Processor p = new Processor(false);
        new Access(FileRoots.of(List.of(root)), FileRoots.none(), new Outbound(Outbound.Policy.DEFAULT), XmlPolicy.DEFAULT)
                .install(p.getUnderlyingConfiguration());
        String xsl = "<xsl:stylesheet version='3.0' xmlns:xsl='http://www.w3.org/1999/XSL/Transform'>"
                + "<xsl:variable name='s' static='yes' select=\"unparsed-text('" + secret.toUri() + "')\"/>"
                + "<xsl:template name='xsl:initial-template'><x><xsl:value-of select='$s'/></x></xsl:template></xsl:stylesheet>";
        assertThatThrownBy(() -> p.newXsltCompiler().compile(new StreamSource(new java.io.StringReader(xsl), root.resolve("s.xsl").toUri().toString())))
                .isInstanceOf(net.sf.saxon.s9api.SaxonApiException.class);
    }
}
