package arno.store.http;

import com.thaiopensource.util.PropertyMapBuilder;
import com.thaiopensource.validate.ValidateProperty;
import com.thaiopensource.validate.ValidationDriver;
import com.thaiopensource.validate.rng.CompactSchemaReader;
import java.io.StringReader;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import org.xml.sax.ErrorHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXParseException;

/**
 * The standards the store API's documents are checked against: RFC 4287's RELAX NG grammar for
 * entries and feeds ({@code rfc/atom.rnc}) and RFC 5023's for the service document
 * ({@code rfc/app.rnc}), read by Jing in the compact syntax. One validator per call (Jing's
 * driver is not thread-safe and the grammars are small).
 */
public final class Rfc {
    private Rfc() {}

    /** Fails with every message Jing gives unless {@code xml} is an atom:entry or atom:feed valid by RFC 4287. */
    public static void assertAtom(String xml) {
        assertValid("atom.rnc", xml);
    }

    /** Fails unless {@code xml} is an app:service valid by RFC 5023. */
    public static void assertService(String xml) {
        assertValid("app.rnc", xml);
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
        URL grammar = Rfc.class.getResource("/rfc/" + rnc);
        try {
            if (!driver.loadSchema(new InputSource(grammar.toString()))) {
                throw new AssertionError("the grammar " + rnc + " does not load: " + problems);
            }
            driver.validate(new InputSource(new StringReader(xml)));
        } catch (java.io.IOException | org.xml.sax.SAXException e) {
            throw new AssertionError("cannot validate against " + rnc + ": " + e, e);
        }
        return problems;
    }

    private static void assertValid(String rnc, String xml) {
        List<String> problems = problems(rnc, xml);
        if (!problems.isEmpty()) {
            throw new AssertionError("not valid against " + rnc + ":\n  " + String.join("\n  ", problems) + "\n" + xml);
        }
    }
}
