package arno.xml;

import javax.xml.transform.SourceLocator;
import org.xml.sax.SAXParseException;

/**
 * Where something happened: a document (URI or file), line and column, and, inside a page's
 * pipeline, the route and the stage. The one place that formats a location, so a location reads
 * the same in a log line, an error page, a batch report and the command line:
 * {@code file:/sites/a/site.xsl line 12 column 5 (route toc, stage 2: xslt site.xsl)}.
 *
 * @param uri    the document, or null
 * @param line   1-based line, or -1
 * @param column 1-based column, or -1
 * @param route  the route of a page, or null
 * @param stage  the 1-based stage of the route's pipeline, or -1
 * @param step   what the stage is ("xslt site.xsl mode toc"), or null
 */
public record Where(String uri, int line, int column, String route, int stage, String step) {
    public static final Where NOWHERE = new Where(null, -1, -1, null, -1, null);

    public static Where at(String uri, int line, int column) {
        return new Where(uri, line > 0 ? line : -1, column > 0 ? column : -1, null, -1, null);
    }

    public static Where at(String uri) {
        return at(uri, -1, -1);
    }

    /** The location a parser or processor reported; {@code fallbackUri} when it names no document. */
    public static Where of(SourceLocator locator, String fallbackUri) {
        if (locator == null) return at(fallbackUri);
        String uri = locator.getSystemId() != null ? locator.getSystemId() : fallbackUri;
        return at(uri, locator.getLineNumber(), locator.getColumnNumber());
    }

    public static Where of(SAXParseException e, String fallbackUri) {
        String uri = e.getSystemId() != null ? e.getSystemId() : fallbackUri;
        return at(uri, e.getLineNumber(), e.getColumnNumber());
    }

    /** This location inside stage {@code stage} ({@code step}) of {@code route}. */
    public Where inStage(String route, int stage, String step) {
        return new Where(uri, line, column, route, stage, step);
    }

    public boolean isKnown() {
        return uri != null || line > 0 || route != null;
    }

    /** Just the document part: "URI line L column C", or "" when unknown. */
    public String document() {
        StringBuilder b = new StringBuilder();
        if (uri != null) b.append(uri);
        if (line > 0) b.append(b.length() > 0 ? " " : "").append("line ").append(line);
        if (column > 0) b.append(" column ").append(column);
        return b.toString();
    }

    /** The whole location in one line, or "" when nothing is known. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(document());
        if (route != null || stage > 0) {
            if (b.length() > 0) b.append(' ');
            b.append('(');
            if (route != null) b.append("route ").append(route);
            if (stage > 0) b.append(route != null ? ", " : "").append("stage ").append(stage);
            if (step != null && !step.isEmpty()) b.append(": ").append(step);
            b.append(')');
        }
        return b.toString();
    }
}
