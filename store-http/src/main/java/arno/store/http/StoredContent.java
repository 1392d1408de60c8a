package arno.store.http;

import arno.http.HeaderValues;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.util.Objects;
import java.util.Set;

/**
 * Keeps what writers stored from acting in the server's origin. The store serves a writer's
 * bytes from the same origin as the admin console: an SVG or XHTML variant with a script, opened
 * by an administrator, would run that script as the console's own page (and run console queries,
 * read the pages, send them away). So every answer of the store API carries, as its type is set:
 *
 * <ul>
 * <li>{@code X-Content-Type-Options: nosniff}: a browser takes the stored media type as it is,
 * never guesses HTML or script in a text or an image;
 * <li>{@value #POLICY} as {@code Content-Security-Policy}: {@code sandbox} gives the document an
 * origin of its own and no script at all (in any XML type, whose XHTML- or SVG-namespace
 * {@code script} elements a browser runs); images, styles, fonts and media may come from the
 * server, nothing may be fetched elsewhere. PDF is left out: browsers show it in a viewer of their
 * own (whose script never reaches the page's origin), and some refuse a sandboxed one;
 * <li>{@code Content-Disposition: attachment} for HTML, XHTML and SVG, the types a browser renders
 * as an active page: opened directly they are downloaded, not shown. Embedding is unaffected (an
 * {@code <img src>} of an SVG figure ignores the header); XML and Atom stay viewable, sandboxed.
 * </ul>
 */
final class StoredContent {
    static final String POLICY = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'self' 'unsafe-inline';"
            + " font-src 'self'; media-src 'self'";
    private static final Set<String> ACTIVE = Set.of("text/html", "application/xhtml+xml", "image/svg+xml");

    private StoredContent() {}

    /** {@code resp}, setting the headers above whenever its content type is set. */
    static HttpServletResponse guard(HttpServletRequest req, HttpServletResponse resp) {
        return new HttpServletResponseWrapper(resp) {
            @Override
            public void setContentType(String type) {
                super.setContentType(type);
                headers(req, this, type);
            }
        };
    }

    private static void headers(HttpServletRequest req, HttpServletResponse resp, String type) {
        String media = Objects.requireNonNullElse(HeaderValues.mediaType(type), "");
        resp.setHeader("X-Content-Type-Options", "nosniff");
        if (!media.equals("application/pdf")) resp.setHeader("Content-Security-Policy", POLICY);
        if (ACTIVE.contains(media)) {
            String uri = req.getRequestURI();
            String name = uri.substring(uri.lastIndexOf('/') + 1);
            resp.setHeader("Content-Disposition", name.matches("[A-Za-z0-9._-]{1,200}")
                    ? "attachment; filename=\"" + name + "\"" : "attachment");
        }
    }
}
