package arno.store.atom;

import com.thaiopensource.util.PropertyMapBuilder;
import com.thaiopensource.validate.ValidateProperty;
import com.thaiopensource.validate.ValidationDriver;
import com.thaiopensource.validate.rng.CompactSchemaReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.transform.stream.StreamSource;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XdmItem;
import net.sf.saxon.s9api.XdmNode;
import org.xml.sax.ErrorHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXParseException;

/**
 * The standards the store API's documents are checked against, as a generic client would check
 * them:
 * <ul>
 * <li>RFC 4287's RELAX NG grammar for entries and feeds ({@code rfc/atom.rnc}) and RFC 5023's for
 * the service document ({@code rfc/app.rnc}), read by Jing in the compact syntax;</li>
 * <li>the rules RELAX NG cannot say: the Schematron assertions annotated in RFC 4287's grammar
 * (read from {@code atom.rnc} itself, so they are the RFC's words) and the MUSTs of its section 4.1.2
 * in prose ({@link #PROSE}), each evaluated as XPath on every atom:feed and atom:entry;</li>
 * <li>RFC 5023's elements inside Atom documents ({@code app:edited}, {@code app:collection}),
 * which RFC 4287's grammar takes as extensions and does not look into: each is validated on its
 * own against {@code rfc/app-in-atom.rnc}.</li>
 * </ul>
 * One validator per call (Jing's driver is not thread-safe and the grammars are small).
 */
public final class Rfc {
    private Rfc() {}

    public static final String ATOM = "http://www.w3.org/2005/Atom";
    public static final String APP = "http://www.w3.org/2007/app";

    /** A rule: on each node matching {@code context}, {@code test} must be true. */
    public record Rule(String context, String test, String message) {
    }

    /** RFC 4287 4.1.2's MUSTs that its grammar's annotations leave out. */
    static final List<Rule> PROSE = List.of(
            new Rule("atom:entry", "not(atom:content[@src]) or atom:summary",
                    "An atom:entry must have an atom:summary if its atom:content has a src attribute (RFC 4287 4.1.2)."),
            new Rule("atom:entry", "not(atom:link[not(@rel) or @rel = 'alternate'][some $o in"
                    + " preceding-sibling::atom:link[not(@rel) or @rel = 'alternate'] satisfies"
                    + " (string($o/@type) = string(@type) and string($o/@hreflang) = string(@hreflang))])",
                    "An atom:entry must not have two alternate links with the same type and hreflang (RFC 4287 4.1.2)."),
            new Rule("atom:entry", "count(app:edited) le 1",
                    "An atom:entry has at most one app:edited (RFC 5023 10.2)."));

    private static final Pattern RULE = Pattern.compile(
            "s:rule\\s*\\[\\s*context\\s*=\\s*\"([^\"]+)\"\\s*s:assert\\s*\\[\\s*test\\s*=\\s*((?:\"[^\"]*\"\\s*~\\s*)*\"[^\"]*\")"
                    + "\\s*((?:\"[^\"]*\"\\s*~\\s*)*\"[^\"]*\")");
    private static final Pattern LITERAL = Pattern.compile("\"([^\"]*)\"");

    /** The Schematron rules in RFC 4287's grammar: {@code s:rule [ context = "…" s:assert [ test = "…" ~ "…" "message" ] ]}. */
    public static final List<Rule> ANNOTATED = annotations("atom.rnc");

    private static final Processor SAXON = new Processor(false);

    /**
     * The grammars as files: from another module's test-jar they are jar: URLs, against which Jing
     * cannot resolve app-in-atom.rnc's relative include of app.rnc.
     */
    private static final java.nio.file.Path GRAMMARS = grammars();

    private static java.nio.file.Path grammars() {
        try {
            java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("arno-rfc");
            dir.toFile().deleteOnExit();
            for (String g : List.of("atom.rnc", "app.rnc", "app-in-atom.rnc")) {
                try (InputStream in = Rfc.class.getResourceAsStream("/rfc/" + g)) {
                    java.nio.file.Path f = dir.resolve(g);
                    java.nio.file.Files.copy(in, f);
                    f.toFile().deleteOnExit();
                }
            }
            return dir;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Fails with every message unless {@code xml} is an atom:entry or atom:feed valid by RFC 4287's
     * grammar and rules, with valid RFC 5023 elements inside.
     */
    public static void assertAtom(String xml) {
        List<String> problems = new ArrayList<>(problems("atom.rnc", xml));
        if (problems.isEmpty()) problems.addAll(ruleProblems(xml));
        fail("RFC 4287", problems, xml);
    }

    /** Fails unless {@code xml} is an app:service valid by RFC 5023. */
    public static void assertService(String xml) {
        fail("RFC 5023", problems("app.rnc", xml), xml);
    }

    /** The messages of Jing for {@code xml} against the grammar {@code rnc} (empty when valid). */
    public static List<String> problems(String rnc, String xml) {
        List<String> problems = new ArrayList<>();
        ErrorHandler collect = new ErrorHandler() {
            @Override public void warning(SAXParseException e) {}
            @Override public void error(SAXParseException e) {
                problems.add(e.getLineNumber() + ":" + e.getColumnNumber() + " " + e.getMessage());
            }
            @Override public void fatalError(SAXParseException e) {
                error(e);
            }
        };
        PropertyMapBuilder properties = new PropertyMapBuilder();
        properties.put(ValidateProperty.ERROR_HANDLER, collect);
        ValidationDriver driver = new ValidationDriver(properties.toPropertyMap(), CompactSchemaReader.getInstance());
        try {
            if (!driver.loadSchema(new InputSource(GRAMMARS.resolve(rnc).toUri().toString()))) {
                throw new AssertionError("the grammar " + rnc + " does not load: " + problems);
            }
            driver.validate(new InputSource(new StringReader(xml)));
        } catch (java.io.IOException | org.xml.sax.SAXException e) {
            throw new AssertionError("cannot validate against " + rnc + ": " + e, e);
        }
        return problems;
    }

    /**
     * What breaks the rules beyond the grammar: each annotated and prose rule on every node of its
     * context, and each app:edited and app:collection against {@code app-in-atom.rnc}.
     */
    public static List<String> ruleProblems(String xml) {
        List<String> problems = new ArrayList<>();
        try {
            XdmNode doc = SAXON.newDocumentBuilder().build(new StreamSource(new StringReader(xml)));
            XPathCompiler x = SAXON.newXPathCompiler();
            x.declareNamespace("atom", ATOM);
            x.declareNamespace("app", APP);
            List<Rule> rules = new ArrayList<>(ANNOTATED);
            rules.addAll(PROSE);
            for (Rule r : rules) {
                for (XdmItem node : x.evaluate("//" + r.context(), doc)) {
                    if (!x.evaluateSingle("boolean(" + r.test() + ")", node).getStringValue().equals("true")) {
                        problems.add(r.message() + " [" + r.test() + "] at " + path(x, node));
                    }
                }
            }
            for (XdmItem app : x.evaluate("//app:edited | //app:collection", doc)) {
                for (String p : problems("app-in-atom.rnc", app.toString())) problems.add(p + " in " + path(x, app));
            }
        } catch (SaxonApiException e) {
            throw new AssertionError("cannot check the rules: " + e.getMessage() + "\n" + xml, e);
        }
        return problems;
    }

    private static String path(XPathCompiler x, XdmItem node) throws SaxonApiException {
        return x.evaluateSingle("path(.)", node).getStringValue();
    }

    private static void fail(String rfc, List<String> problems, String xml) {
        if (!problems.isEmpty()) {
            throw new AssertionError("not valid by " + rfc + ":\n  " + String.join("\n  ", problems) + "\n" + xml);
        }
    }

    /** The Schematron rules annotated in a grammar, their tests and messages joined as RNC joins {@code "a" ~ "b"}. */
    private static List<Rule> annotations(String rnc) {
        String text;
        try (InputStream in = Rfc.class.getResourceAsStream("/rfc/" + rnc)) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Rule> rules = new ArrayList<>();
        Matcher m = RULE.matcher(text);
        while (m.find()) rules.add(new Rule(m.group(1), join(m.group(2)), join(m.group(3))));
        if (rules.size() != 3) throw new IllegalStateException(rnc + " should annotate 3 Schematron rules, not " + rules.size());
        return List.copyOf(rules);
    }

    private static String join(String literals) {
        StringBuilder b = new StringBuilder();
        Matcher m = LITERAL.matcher(literals);
        while (m.find()) b.append(m.group(1));
        return b.toString();
    }
}
