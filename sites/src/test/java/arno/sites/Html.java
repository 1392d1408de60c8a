package arno.sites;

import org.jsoup.Jsoup;
import org.jsoup.helper.W3CDom;
import org.w3c.dom.Document;

/** HTML5 pages as DOM, so XMLUnit can compare and query them by meaning. */
final class Html {
    private Html() {}

    static Document parse(String html) {
        return new W3CDom().namespaceAware(false).fromJsoup(Jsoup.parse(html));
    }

    static String text(Document page, String xpath) {
        try {
            return javax.xml.xpath.XPathFactory.newInstance().newXPath().evaluate(xpath, page);
        } catch (javax.xml.xpath.XPathExpressionException e) {
            throw new IllegalArgumentException(xpath, e);
        }
    }
}
