package arno.xml;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The one hostile corpus, for every entry point that takes XML (request bodies, batch documents
 * and inputs, store loads, site.xml, documents read by doc() and collection()). Each case says
 * what must happen: refused by the policy (with the kind), refused as malformed, or accepted with
 * a given text content. External references point at {@code leak}, a URL (or file URI) the test
 * watches: a passing test shows that nothing was fetched from it.
 *
 * <p>Shipped in arno-xml's test jar; other modules depend on it with {@code <type>test-jar</type>}.
 */
public final class HostileCorpus {
    /** What a case must lead to. */
    public enum Outcome { REFUSED, MALFORMED, ACCEPTED }

    /**
     * @param name    short, for test names and file names
     * @param xml     the bytes
     * @param outcome what must happen
     * @param kind    for REFUSED, the policy's reason
     * @param text    for ACCEPTED, the root element's string value
     */
    public record Case(String name, byte[] xml, Outcome outcome, XmlPolicy.Kind kind, String text) {
        @Override
        public String toString() {
            return name;
        }
    }

    private HostileCorpus() {}

    /**
     * What a test watches to see that nothing was fetched or read: an HTTP server on 127.0.0.1
     * that counts the requests it gets (and answers with what a leak would show: "LEAKED" and an
     * entity declaration), and a secret file outside every root. {@link #cases()} points the
     * corpus's external references at both. Close it after the test.
     */
    public static final class Leak implements AutoCloseable, org.junit.jupiter.api.extension.AfterAllCallback {
        private final com.sun.net.httpserver.HttpServer server;
        private final java.util.concurrent.atomic.AtomicInteger requests = new java.util.concurrent.atomic.AtomicInteger();
        private final java.nio.file.Path secret;

        public Leak() throws java.io.IOException {
            server = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/", exchange -> {
                requests.incrementAndGet();
                byte[] body = "<!ENTITY nbsp \"&#160;\"><!ENTITY x \"LEAKED\">LEAKED".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
            });
            server.start();
            secret = java.nio.file.Files.createTempFile("arno-secret", ".txt");
            java.nio.file.Files.writeString(secret, "LEAKED");
        }

        /**
         * A leak watched for a whole test class and closed after it:
         * {@code @RegisterExtension static final HostileCorpus.Leak LEAK = HostileCorpus.Leak.open();}
         */
        public static Leak open() {
            try {
                return new Leak();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        @Override
        public void afterAll(org.junit.jupiter.api.extension.ExtensionContext context) throws java.io.IOException {
            close();
        }

        public String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort() + "/leak";
        }

        /** The secret file, outside every root a test configures. */
        public java.nio.file.Path secret() {
            return secret;
        }

        /** Requests the server has had: a passing test leaves this where it was. */
        public int requests() {
            return requests.get();
        }

        /** The corpus, its external references pointed at this leak. */
        public List<Case> cases() {
            return HostileCorpus.cases(url(), secret.toUri().toString());
        }

        @Override
        public void close() throws java.io.IOException {
            server.stop(0);
            java.nio.file.Files.deleteIfExists(secret);
        }
    }

    /**
     * Every case. {@code leakUrl} is an http URL and {@code leakFile} a file URI whose reading the
     * test can observe (a counting server, a file outside every root).
     */
    public static List<Case> cases(String leakUrl, String leakFile) {
        List<Case> c = new ArrayList<>();
        refused(c, "external-general-file", "<!DOCTYPE a [<!ENTITY x SYSTEM \"" + leakFile + "\">]><a>&x;</a>", XmlPolicy.Kind.EXTERNAL_ENTITY);
        refused(c, "external-general-url", "<!DOCTYPE a [<!ENTITY x SYSTEM \"" + leakUrl + "\">]><a>&x;</a>", XmlPolicy.Kind.EXTERNAL_ENTITY);
        refused(c, "external-parameter-file", "<!DOCTYPE a [<!ENTITY % p SYSTEM \"" + leakFile + "\"> %p;]><a/>", XmlPolicy.Kind.EXTERNAL_ENTITY);
        refused(c, "external-parameter-url", "<!DOCTYPE a [<!ENTITY % p SYSTEM \"" + leakUrl + "\"> %p;]><a/>", XmlPolicy.Kind.EXTERNAL_ENTITY);
        refused(c, "entity-from-external-dtd", "<!DOCTYPE a SYSTEM \"" + leakUrl + "\"><a>&nbsp;</a>", XmlPolicy.Kind.UNDECLARED_ENTITY);
        refused(c, "billion-laughs", billionLaughs(), XmlPolicy.Kind.ENTITY_EXPANSIONS);
        refused(c, "quadratic-blowup", quadratic(), XmlPolicy.Kind.ENTITY_CHARACTERS);
        refused(c, "deep-nesting", "<a>".repeat(100_000) + "</a>".repeat(100_000), XmlPolicy.Kind.DEPTH);
        refused(c, "huge-attribute", "<a x=\"" + "y".repeat(10 << 20) + "\"/>", XmlPolicy.Kind.ATTRIBUTE_LENGTH);
        c.add(new Case("not-well-formed", "<a><b></a>".getBytes(StandardCharsets.UTF_8), Outcome.MALFORMED, null, null));
        c.add(new Case("unknown-encoding", "<?xml version=\"1.0\" encoding=\"x-no-such-encoding\"?><a/>".getBytes(StandardCharsets.US_ASCII),
                Outcome.MALFORMED, null, null));
        accepted(c, "jats-doctype", "<?xml version=\"1.0\"?>\n<!DOCTYPE article PUBLIC \"-//NLM//DTD JATS (Z39.96) Journal Archiving"
                + " and Interchange DTD v1.2 20190208//EN\" \"JATS-archivearticle1.dtd\">\n<article><p>caf\u00e9</p></article>",
                StandardCharsets.UTF_8, false, "caf\u00e9");
        accepted(c, "internal-entities", "<!DOCTYPE a [<!ENTITY who \"world\">]><a>hello &who;</a>", StandardCharsets.UTF_8, false, "hello world");
        accepted(c, "utf8-bom", "<a>caf\u00e9 \u2603</a>", StandardCharsets.UTF_8, true, "caf\u00e9 \u2603");
        accepted(c, "utf16le-bom", "<?xml version=\"1.0\" encoding=\"UTF-16\"?><a>caf\u00e9 \u2603</a>", StandardCharsets.UTF_16LE, true, "caf\u00e9 \u2603");
        accepted(c, "utf16be-bom", "<?xml version=\"1.0\" encoding=\"UTF-16\"?><a>caf\u00e9 \u2603</a>", StandardCharsets.UTF_16BE, true, "caf\u00e9 \u2603");
        accepted(c, "latin1-declared", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>caf\u00e9</a>", StandardCharsets.ISO_8859_1, false, "caf\u00e9");
        return List.copyOf(c);
    }

    private static void refused(List<Case> c, String name, String xml, XmlPolicy.Kind kind) {
        c.add(new Case(name, xml.getBytes(StandardCharsets.UTF_8), Outcome.REFUSED, kind, null));
    }

    private static void accepted(List<Case> c, String name, String xml, Charset charset, boolean bom, String text) {
        byte[] body = xml.getBytes(charset);
        byte[] mark = !bom ? new byte[0]
                : charset == StandardCharsets.UTF_8 ? new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}
                : charset == StandardCharsets.UTF_16LE ? new byte[] {(byte) 0xFF, (byte) 0xFE}
                : new byte[] {(byte) 0xFE, (byte) 0xFF};
        byte[] all = new byte[mark.length + body.length];
        System.arraycopy(mark, 0, all, 0, mark.length);
        System.arraycopy(body, 0, all, mark.length, body.length);
        c.add(new Case(name, all, Outcome.ACCEPTED, null, text));
    }

    private static String billionLaughs() {
        StringBuilder b = new StringBuilder("<!DOCTYPE lolz [<!ENTITY lol \"lol\">");
        b.append("<!ENTITY lol1 \"").append("&lol;".repeat(10)).append("\">");
        for (int i = 2; i <= 9; i++) b.append("<!ENTITY lol").append(i).append(" \"").append(("&lol" + (i - 1) + ";").repeat(10)).append("\">");
        return b.append("]><lolz>&lol9;</lolz>").toString();
    }

    /** One 100,000-character entity used 50 times: 5 million characters from a 100 KB document. */
    private static String quadratic() {
        return "<!DOCTYPE a [<!ENTITY big \"" + "x".repeat(100_000) + "\">]><a>" + "&big;".repeat(50) + "</a>";
    }
}
