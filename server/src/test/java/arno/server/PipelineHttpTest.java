package arno.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.testkit.Html;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringReader;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.SchemaFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xmlunit.assertj3.XmlAssert;

/**
 * What the pipeline does on the wire: real Tomcat, real sockets, real Saxon, the test sites
 * under src/test/resources/testroot. Pipeline behaviour that is not HTTP (routing, stages, error
 * pages, documents) is tested by the case files of the pipeline module.
 */
class PipelineHttpTest {
    static final long LIMIT = 64 * 1024;
    static TestServer arno;

    @BeforeAll
    static void start() throws IOException {
        arno = TestServer.start("testroot", true, LIMIT);
    }

    @AfterAll
    static void stop() {
        arno.close();
    }

    @Test
    void filtersAndTemplatesBuildThePage() {
        HttpResponse<String> r = arno.get("/alpha/hello/world");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-Arno-Test")).hasValue("hello");
        assertThat(r.headers().firstValue("Content-Type")).hasValue("text/html;charset=UTF-8");
        assertThat(r.headers().allValues("Set-Cookie")).anySatisfy(c ->
                assertThat(c).contains("seen=yes").contains("Path=/alpha").contains("HttpOnly").contains("Max-Age=60"));
        var page = Html.parse(r.body());
        XmlAssert.assertThat(page).valueByXPath("//h1[@id='brand']").isEqualTo("Alpha");
        XmlAssert.assertThat(page).valueByXPath("//p[@id='greeting']").isEqualTo("Hello, world");
        XmlAssert.assertThat(page).valueByXPath("starts-with(//p[@id='stamp'], 'java ')").isEqualTo("true");
        XmlAssert.assertThat(page).valueByXPath("//p[@id='colour']").isEqualTo("blue");
        assertThat(r.body()).startsWithIgnoringCase("<!DOCTYPE html>").doesNotContain("urn:arno");
    }

    @Test
    void siteChosenByHostUsesTheSharedPackageUnchanged() throws IOException {
        String raw = raw("GET / HTTP/1.1\r\nHost: beta.test\r\nConnection: close\r\n\r\n");
        assertThat(raw).startsWith("HTTP/1.1 200");
        var page = Html.parse(raw.substring(raw.indexOf("\r\n\r\n") + 4));
        XmlAssert.assertThat(page).valueByXPath("//h1[@id='brand']").isEqualTo("Base");
        XmlAssert.assertThat(page).valueByXPath("//p[@id='site']").isEqualTo("beta");
    }

    @Test
    void redirectIsResolvedAgainstTheRequest() {
        HttpResponse<String> r = arno.get("/alpha/old");
        assertThat(r.statusCode()).isEqualTo(301);
        assertThat(r.headers().firstValue("Location")).hasValue(arno.uri("/alpha/hello/moved").toString());
    }

    @Test
    void conditionalGetAnswers304WhenValidatorsMatch() {
        HttpResponse<String> first = arno.get("/alpha/cond");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("ETag")).hasValue("\"v42\"");
        assertThat(first.headers().firstValue("Last-Modified")).hasValue("Fri, 2 Jan 2026 03:04:05 GMT");
        HttpResponse<String> same = arno.get("/alpha/cond", "If-None-Match", "\"v42\"");
        assertThat(same.statusCode()).isEqualTo(304);
        assertThat(same.body()).isEmpty();
        assertThat(arno.get("/alpha/cond", "If-None-Match", "\"v41\"").statusCode()).isEqualTo(200);
        assertThat(arno.get("/alpha/cond", "If-Modified-Since", "Sat, 03 Jan 2026 00:00:00 GMT").statusCode()).isEqualTo(304);
        assertThat(arno.get("/alpha/cond", "If-Modified-Since", "Thu, 01 Jan 2026 00:00:00 GMT").statusCode()).isEqualTo(200);
    }

    /** Issue 22: the one conditional helper (arno.http.Conditional) answers pages as it answers the store and the cache. */
    @Test
    void conditionsOnEveryLineInEveryFormAreAnswered() {
        // every If-None-Match line counts (one was read before)
        assertThat(arno.get("/alpha/cond", "If-None-Match", "\"v40\"", "If-None-Match", "\"v41\", \"v42\"").statusCode()).isEqualTo(304);
        // the gzip form's tag revalidates the page (no connector rewrites it any more)
        assertThat(arno.get("/alpha/cond", "If-None-Match", "\"v42--gzip\"").statusCode()).isEqualTo(304);
        // the obsolete date forms a recipient must read (RFC 9110 5.6.7)
        assertThat(arno.get("/alpha/cond", "If-Modified-Since", "Saturday, 03-Jan-26 00:00:00 GMT").statusCode()).isEqualTo(304);
        // a failing If-Match or If-Unmodified-Since is 412 (RFC 9110 13.1.1, 13.1.4)
        HttpResponse<String> failed = arno.get("/alpha/cond", "If-Match", "\"v41\"");
        assertThat(failed.statusCode()).isEqualTo(412);
        assertThat(failed.body()).isEmpty();
        assertThat(arno.get("/alpha/cond", "If-Unmodified-Since", "Thu, 01 Jan 2026 00:00:00 GMT").statusCode()).isEqualTo(412);
        assertThat(arno.get("/alpha/cond", "If-Match", "\"v42\"").statusCode()).isEqualTo(200);
    }

    @Test
    void jsonBodiesComeFromTheXmlToJsonVocabulary() {
        HttpResponse<String> r = arno.get("/alpha/json");
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json;charset=UTF-8");
        assertThat(r.body().replace(" ", "")).isEqualTo("{\"site\":\"alpha\",\"answer\":42}");
    }

    @Test
    void bodiesAreSerializedInTheirDeclaredCharsetAndMethod() {
        HttpResponse<byte[]> latin = arno.client.sendAsync(HttpRequest.newBuilder(arno.uri("/alpha/latin")).build(),
                HttpResponse.BodyHandlers.ofByteArray()).join();
        assertThat(latin.headers().firstValue("Content-Type")).hasValue("text/plain;charset=ISO-8859-1");
        assertThat(latin.body()).containsExactly('c', 'a', 'f', 0xE9);
        HttpResponse<String> xhtml = arno.get("/alpha/xhtml");
        assertThat(xhtml.headers().firstValue("Content-Type")).hasValue("application/xhtml+xml;charset=UTF-8");
        XmlAssert.assertThat(xhtml.body()).and("<html xmlns='http://www.w3.org/1999/xhtml'><head>"
                + "<meta http-equiv='Content-Type' content='application/xhtml+xml; charset=UTF-8'/>"
                + "<title>x</title></head><body><br/></body></html>")
                .ignoreWhitespace().areSimilar();
    }

    @Test
    void headAnswersHeadersWithoutBody() throws IOException {
        String raw = raw("HEAD /alpha/hello/x HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        assertThat(raw).startsWith("HTTP/1.1 200").contains("X-Arno-Test: hello");
        assertThat(raw.substring(raw.indexOf("\r\n\r\n") + 4)).isEmpty();
    }

    @Test
    void xmlBodyIsInlinedInTheRequest() {
        HttpResponse<String> r = post("/alpha/echo", "application/xml", "<a xmlns='urn:x'><b c='d'>text</b></a>");
        assertThat(r.statusCode()).isEqualTo(200);
        XmlAssert.assertThat(r.body()).and("<echo kind='xml'><a xmlns='urn:x'><b c='d'>text</b></a></echo>").areSimilar();
    }

    @Test
    void malformedXmlBodyIs400NamingLineAndColumn() {
        HttpResponse<String> r = post("/alpha/echo", "application/xml", "<a>\n  <b></a>");
        assertThat(r.statusCode()).isEqualTo(400);
        var page = Html.parse(r.body());
        XmlAssert.assertThat(page).valueByXPath("//h1[@id='brand']").isEqualTo("Alpha");
        XmlAssert.assertThat(page).valueByXPath("//p[@id='error-code']").isEqualTo("malformed-xml");
        XmlAssert.assertThat(page).valueByXPath("//p[@id='where']").isEqualTo("request:body:2");
        XmlAssert.assertThat(page).valueByXPath("starts-with(//p[@id='message'], 'the request body is not well-formed XML')").isEqualTo("true");
        assertThat(arno.get("/alpha/hello/still").statusCode()).isEqualTo(200);
    }

    @Test
    void bodiesOverTheLimitAre413WithOrWithoutContentLength() {
        String big = "<a>" + "x".repeat((int) LIMIT) + "</a>";
        assertThat(post("/alpha/echo", "application/xml", big).statusCode()).isEqualTo(413);
        HttpRequest chunked = HttpRequest.newBuilder(arno.uri("/alpha/echo"))
                .header("Content-Type", "application/xml")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() ->
                        new ByteArrayInputStream(big.getBytes(StandardCharsets.UTF_8)))).build();
        assertThat(arno.send(chunked).statusCode()).isEqualTo(413);
        assertThat(arno.get("/alpha/hello/after").statusCode()).isEqualTo(200);
    }

    @Test
    void unknownSiteIs404FromTheDefaultErrorPage() {
        HttpResponse<String> r = arno.get("/nowhere");
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("text/html;charset=UTF-8");
        assertThat(Html.text(Html.parse(r.body()), "//p[@class='error-message']"))
                .isEqualTo("No site answers for host '127.0.0.1' and path '/nowhere'");
    }

    /** A bad percent-encoding is the client's mistake: 400 with err:error in the error page, never a 500. */
    @Test
    void badPercentEncodingsAre400() throws IOException {
        // Sent raw: java.net.URI refuses to build these.
        for (String target : List.of("/alpha/hello/x?q=%zz", "/alpha/hello/x?q=100%", "/alpha/hello/x?a%2=1")) {
            String r = raw("GET " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
            assertThat(r).as(target).startsWith("HTTP/1.1 400");
            var page = Html.parse(r.substring(r.indexOf("\r\n\r\n") + 4));
            assertThat(Html.text(page, "//p[@id='error-code']")).as(target).isEqualTo("bad-request");
            assertThat(Html.text(page, "//p[@id='message']")).as(target).contains("percent-encoding");
        }
        // Tomcat decodes the path itself: a bad encoding there never reaches a servlet, and its
        // own 400 page must not show a stack trace or its version.
        String raw = raw("GET /alpha/hello/%zz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        assertThat(raw).startsWith("HTTP/1.1 400");
        assertThat(raw).doesNotContain("Exception").doesNotContain("Apache Tomcat/").doesNotContain("at org.apache");
    }

    /** What Tomcat refuses before any servlet runs: its page shows no stack trace and no version. */
    @Test
    void tomcatsOwnErrorPagesShowNoStackTraceOrVersion() throws IOException {
        String raw = raw("GET /alpha/hello/x HTTP/1.1 extra\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        assertThat(raw).startsWith("HTTP/1.1 400");
        assertThat(raw).doesNotContain("Exception").doesNotContain("Tomcat/").doesNotContain("at org.apache")
                .doesNotContain("<pre>");
        raw = raw("G\u0001T / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        assertThat(raw).startsWith("HTTP/1.1 400").doesNotContain("Exception").doesNotContain("Tomcat/");
    }

    /** A Location header names the request's host only when it is configured; otherwise the server's own address. */
    @Test
    void redirectsDoNotEchoAnUnconfiguredHost() throws IOException {
        String raw = raw("GET /alpha/old HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n");
        assertThat(raw).startsWith("HTTP/1.1 301");
        assertThat(raw).doesNotContain("evil.example")
                .contains("Location: http://127.0.0.1:" + arno.server.port() + "/alpha/hello/moved");
    }

    @Test
    void wrongMethodIs405WithAllow() {
        HttpResponse<String> r = arno.get("/alpha/echo");
        assertThat(r.statusCode()).isEqualTo(405);
        assertThat(r.headers().firstValue("Allow").orElse("")).contains("POST").contains("PUT");
    }

    @Test
    void runtimeErrorIs500AndTheLogLineNamesIdRouteStageAndLocation() throws IOException {
        try (LogCapture log = new LogCapture()) {
            HttpResponse<String> r = arno.get("/alpha/fail");
            assertThat(r.statusCode()).isEqualTo(500);
            var page = Html.parse(r.body());
            String errorId = Html.text(page, "//p[@id='error-id']");
            assertThat(errorId).startsWith("E-");
            int line = lineOf(arno.root.resolve("sites/alpha/alpha.xsl"), "error(QName('urn:test', 'boom')");
            assertThat(Html.text(page, "//p[@id='where']")).endsWith("alpha.xsl:" + line);
            assertThat(Html.text(page, "//p[@id='code']")).isEqualTo("Q{urn:test}boom");
            assertThat(log.containing(errorId)).singleElement().satisfies(l -> assertThat(l)
                    .contains("alpha.xsl line " + line).contains("(route fail, stage 1: xslt alpha.xsl mode fail)"));
        }
    }

    @Test
    void xslMessagesAreLoggedWithTheRequestId() {
        try (LogCapture log = new LogCapture()) {
            assertThat(arno.get("/alpha/message").body()).isEqualTo("said");
            assertThat(log.containing("xsl:message")).singleElement().satisfies(l ->
                    assertThat(l).matches("\\[[a-z0-9]+-[a-z0-9]+\\] xsl:message route=message .*alpha.xsl line \\d+ column \\d+: note bold"));
        }
    }

    @Test
    void xqueryTraceIsLoggedWithTheRequestId() {
        try (LogCapture log = new LogCapture()) {
            assertThat(arno.get("/alpha/mix/6").body()).isEqualTo("36");
            assertThat(log.containing("trace route=mix")).singleElement().satisfies(l ->
                    assertThat(l).matches("\\[[a-z0-9]+-[a-z0-9]+\\] trace route=mix: square.*36.*"));
        }
    }

    @Test
    void runawayStylesheetsAreStoppedAndTheServerKeepsServing() {
        long t0 = System.nanoTime();
        HttpResponse<String> loop = arno.get("/alpha/loop");
        HttpResponse<String> hoard = arno.get("/alpha/hoard");
        long seconds = (System.nanoTime() - t0) / 1_000_000_000L;
        assertThat(loop.statusCode()).isEqualTo(503);
        assertThat(Html.text(Html.parse(loop.body()), "//p[@id='message']")).contains("time limit of 1000 ms");
        assertThat(hoard.statusCode()).isEqualTo(503);

        assertThat(seconds).as("the runaways stopped near their 1 s limits").isLessThan(30);
        assertThat(arno.get("/alpha/hello/alive").statusCode()).isEqualTo(200);
    }

    /**
     * A page's own template that writes without end is stopped at the route's time limit too: its
     * events reach the response writer, which checks the limit. By then part of the page is on the
     * wire, so no 503 can replace it: the response must end as incomplete, never as a whole page
     * that a client or a cache would keep. Failed before: a 200 of 2.7 MB, chunked and properly ended.
     */
    @Test
    void aPageWritingWithoutEndIsCutShortAtItsTimeLimitAndEndsIncomplete() throws Exception {
        long t0 = System.nanoTime();
        java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
        HttpRequest flood = HttpRequest.newBuilder(arno.uri("/alpha/flood")).timeout(Duration.ofSeconds(30)).build();
        assertThatThrownBy(() -> client.send(flood, HttpResponse.BodyHandlers.ofString()))
                .as("the client sees the response end short").isInstanceOf(IOException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("stopped near its 1 s limit").isLessThan(Duration.ofSeconds(20));
        // with curl's eyes: the status line came, then the body ended without its last chunk
        try (Socket s = new Socket("127.0.0.1", arno.uri("/").getPort())) {
            s.setSoTimeout(20_000);
            s.getOutputStream().write("GET /alpha/flood HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            byte[] all = s.getInputStream().readAllBytes();
            String head = new String(all, 0, Math.min(all.length, 200), StandardCharsets.ISO_8859_1);
            String tail = new String(all, Math.max(0, all.length - 16), Math.min(all.length, 16), StandardCharsets.ISO_8859_1);
            assertThat(head).startsWith("HTTP/1.1 200").contains("chunked");
            assertThat(tail).as("no last chunk").doesNotEndWith("0\r\n\r\n");
        }
        assertThat(arno.get("/alpha/hello/alive").statusCode()).isEqualTo(200);
    }

    @Test
    void encodedSlashesCannotSmuggleDotsIntoARouteVariable() {
        // Tomcat itself refuses encoded slashes, so a URL cannot smuggle "../" into a route variable.
        assertThat(arno.get("/alpha/docs/..%2F..%2Fx").statusCode()).isEqualTo(400);
    }

    @Test
    void debugRequestShowsAValidReqRequest() throws Exception {
        HttpResponse<String> r = arno.get("/alpha/_debug/request?q=1&q=2&w=%C3%A9", "Cookie", "c1=v1", "X-Custom", "abc");
        assertThat(r.statusCode()).isEqualTo(200);
        validate("request.xsd", r.body());
        XmlAssert.assertThat(r.body())
                .valueByXPath("count(/*[local-name()='request']/*[local-name()='parameters']/*[@name='q']/*)").isEqualTo("2");
        XmlAssert.assertThat(r.body()).withNamespaceContext(java.util.Map.of("req", "urn:arno:request"))
                .valueByXPath("/req:request/req:parameters/req:parameter[@name='w']/req:value").isEqualTo("é");
        XmlAssert.assertThat(r.body()).withNamespaceContext(java.util.Map.of("req", "urn:arno:request"))
                .valueByXPath("/req:request/req:cookies/req:cookie[@name='c1']").isEqualTo("v1");
        XmlAssert.assertThat(r.body()).withNamespaceContext(java.util.Map.of("req", "urn:arno:request"))
                .valueByXPath("/req:request/req:headers/req:header[@name='x-custom']").isEqualTo("abc");
    }

    @Test
    void formAndOtherBodiesAreDescribed() throws Exception {
        HttpResponse<String> form = post("/alpha/_debug/request", "application/x-www-form-urlencoded", "a=1&b=two");
        validate("request.xsd", form.body());
        XmlAssert.assertThat(form.body()).withNamespaceContext(java.util.Map.of("req", "urn:arno:request"))
                .valueByXPath("/req:request/req:parameters/req:parameter[@name='b']/req:value").isEqualTo("two");
        HttpResponse<String> pdf = post("/alpha/_debug/request", "application/pdf", "%PDF-1.4");
        validate("request.xsd", pdf.body());
        XmlAssert.assertThat(pdf.body()).withNamespaceContext(java.util.Map.of("req", "urn:arno:request"))
                .valueByXPath("/req:request/req:body/@kind").isEqualTo("reference");
        HttpResponse<String> xml = post("/alpha/_debug/request", "application/xml", "<x/>");
        validate("request.xsd", xml.body());
    }

    static void validate(String schema, String xml) throws Exception {
        SchemaFactory f = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
        f.newSchema(PipelineHttpTest.class.getResource("/arno/schema/" + schema))
         .newValidator().validate(new StreamSource(new StringReader(xml)));
    }

    static int lineOf(Path file, String text) throws IOException {
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).contains(text)) return i + 1;
        throw new AssertionError(text + " not in " + file);
    }

    static HttpResponse<String> post(String path, String type, String body) {
        return arno.send(HttpRequest.newBuilder(arno.uri(path)).header("Content-Type", type)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    /** A request over a plain socket, for what java.net.http will not send (Host, HEAD details). */
    static String raw(String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", arno.server.port())) {
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
