package arno.xml;

import java.util.ArrayList;
import java.util.List;

/**
 * Every failure Arno reports: a code from the {@link ErrorCode} catalogue, a message that says
 * what went wrong, {@link Where} it happened, the processor's own error code when one reported it
 * (an XPath, XSLT or parser code such as {@code XTDE0640}), and further reasons (a compiler
 * reports many, each with its own location). Unchecked, so it can cross Saxon's and SAX's
 * callbacks; caught at the edges (a page's error template, the batch report, the HTTP APIs, the
 * command line) and written there as {@code err:error} by {@link ErrorXml} or as one line.
 */
public class ArnoException extends RuntimeException {
    /** One further reason, e.g. one compiler message, with its own location. */
    public record Detail(String code, String message, Where where, boolean warning) {
        @Override
        public String toString() {
            String at = where == null ? "" : where.toString();
            return (at.isEmpty() ? "" : at + ": ") + (code == null ? "" : code + " ") + message;
        }
    }

    private final ErrorCode code;
    private Where where = Where.NOWHERE;
    private String processorCode;
    private final List<Detail> details = new ArrayList<>();

    public ArnoException(ErrorCode code, Throwable cause, Object... args) {
        super(code.format(args), cause);
        this.code = code;
    }

    public ArnoException(ErrorCode code, Object... args) {
        this(code, null, args);
    }

    /** An error of {@code message}'s code whose message is its template filled with {@code args}. */
    public ArnoException(ErrorMessage message, Throwable cause, Object... args) {
        super(message.format(args), cause);
        this.code = message.code();
    }

    /** For subclasses whose message is already composed. */
    protected ArnoException(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }

    public int status() {
        return code.status();
    }

    public Where where() {
        return where;
    }

    /** The XPath/XSLT/XQuery or parser error code behind this error, or null. */
    public String processorCode() {
        return processorCode;
    }

    public List<Detail> details() {
        return List.copyOf(details);
    }

    public ArnoException at(Where where) {
        this.where = where == null ? Where.NOWHERE : where;
        return this;
    }

    public ArnoException processorCode(String code) {
        this.processorCode = code;
        return this;
    }

    /**
     * This failure reported under another code (a shared package's parse error as the site's
     * error): the same message, place, processor code and reasons, caused by {@code cause}.
     */
    public ArnoException as(ErrorCode other, Throwable cause) {
        return new ArnoException(other, getMessage(), cause).at(where).processorCode(processorCode).details(details);
    }

    public ArnoException detail(Detail detail) {
        details.add(detail);
        return this;
    }

    public ArnoException details(List<Detail> more) {
        details.addAll(more);
        return this;
    }

    /**
     * The message with its location and reasons, for a log line or the command line:
     * "message (at LOCATION)" and then one reason per line.
     */
    public String describe() {
        StringBuilder b = new StringBuilder(getMessage());
        String at = where.toString();
        if (!at.isEmpty() && !getMessage().contains(where.document().isEmpty() ? at : where.document())) {
            b.append(" (at ").append(at).append(')');
        }
        for (Detail d : details) {
            if (!d.warning()) b.append("\n  ").append(d);
        }
        return b.toString();
    }

    /** The first {@link ArnoException} in {@code t}'s chain of causes (SAX's too), or null. */
    public static ArnoException find(Throwable t) {
        for (int depth = 0; t != null && depth < 32; depth++) {
            if (t instanceof ArnoException a) return a;
            if (t instanceof org.xml.sax.SAXException s && s.getException() != null && s.getException() != t) {
                ArnoException inner = find(s.getException());
                if (inner != null) return inner;
            }
            t = t.getCause() == t ? null : t.getCause();
        }
        return null;
    }
}
