package arno.testkit;

import javax.xml.xpath.XPathExpressionException;
import javax.xml.xpath.XPathFactory;
import org.jsoup.Jsoup;
import org.jsoup.helper.W3CDom;
import org.w3c.dom.Document;

/** HTML5 pages as DOM, so XMLUnit can compare and query them by meaning. */
public final class Html {
    private Html() {
    }

    /** The page as jsoup parses it (as a browser would), without namespaces so XPath names need no prefix. */
    public static Document parse(String html) {
        return new W3CDom().namespaceAware(false).fromJsoup(Jsoup.parse(html));
    }

    /** The string value of {@code xpath} on {@code page}. */
    public static String text(Document page, String xpath) {
        try {
            return XPathFactory.newInstance().newXPath().evaluate(xpath, page);
        } catch (XPathExpressionException e) {
            throw new IllegalArgumentException(xpath, e);
        }
    }
}
