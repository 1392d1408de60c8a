package arno.filters;

import arno.pipeline.RequestScope;
import arno.pipeline.SaxStage;
import arno.store.atom.Expansion;
import arno.store.atom.ResourcePath;
import arno.xml.DocumentStore;
import arno.xml.ErrorMessage;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.sf.saxon.Configuration;
import net.sf.saxon.event.ReceivingContentHandler;
import org.xml.sax.Attributes;
import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.AttributesImpl;
import org.xml.sax.helpers.XMLFilterImpl;

/**
 * A standard filter: fetches the entry that {@link ContentPeek} located and appends it, expanded,
 * to req:request, so that the templates read the resource and its neighbours from the request
 * rather than with a {@code doc()} call per document:
 *
 * <pre>
 * &lt;msg:attribute name="content" path="/journals/ja/v1/i1"&gt;
 *   &lt;entry xmlns="http://www.w3.org/2005/Atom"&gt;…
 *     &lt;link rel="down" href="/journals/ja/v1/i1/"&gt;&lt;arno:inline&gt;&lt;entry&gt;…&lt;/entry&gt;…&lt;/arno:inline&gt;&lt;/link&gt;
 *   &lt;/entry&gt;
 * &lt;/msg:attribute&gt;
 * </pre>
 *
 * The expansion is the store API's ({@link Expansion}: with-ancestors, with-descendants,
 * with-variants), as the content-peek attribute's {@code expand} says; a bad value there is the
 * site's mistake, a BAD_PARAMETER error. It reads the request's own view: the store's view
 * when the peek said {@code store} (the version every other stage reads), the content folder laid
 * out the same way when it said {@code file} ({@link ContentFiles}). Nothing is appended when the
 * peek said {@code none}, or when there was no peek: the templates answer 404.
 * Declared in site.xml after ContentPeek: {@code <filter java="arno.filters.ContentFetch"/>}.
 *
 * <p>Streams: the peek is the last child of req:request before this stage's input ends, so the
 * entry is written as events straight after it, never built as a tree here.
 */
public final class ContentFetch implements SaxStage {
    static final String REQ = ContentPeek.REQ;
    static final String MSG = ContentPeek.MSG;

    @Override
    public ContentHandler open(RequestScope scope, ContentHandler next) {
        Configuration config = next instanceof ReceivingContentHandler r ? r.getPipelineConfiguration().getConfiguration() : null;
        XMLFilterImpl f = new XMLFilterImpl() {
            private int depth;
            private String path;
            private String kind;
            private String expand;

            @Override
            public void startElement(String uri, String local, String qName, Attributes atts) throws SAXException {
                depth++;
                if (depth == 2 && MSG.equals(uri) && local.equals("attribute") && "content-peek".equals(atts.getValue("", "name"))) {
                    path = atts.getValue("", "path");
                    kind = atts.getValue("", "kind");
                    expand = atts.getValue("", "expand");
                }
                super.startElement(uri, local, qName, atts);
            }

            @Override
            public void endElement(String uri, String local, String qName) throws SAXException {
                if (--depth == 0) fetch();
                super.endElement(uri, local, qName);
            }

            private void fetch() throws SAXException {
                DocumentStore.View view = switch (kind == null ? "none" : kind) {
                    case "store" -> scope.storeView();
                    case "file" -> new ContentFiles(scope, config);
                    default -> null;
                };
                if (view == null) return;
                if (config == null) {
                    throw ErrorMessage.NOT_A_PIPELINE_STAGE.error();
                }
                AttributesImpl a = new AttributesImpl();
                a.addAttribute("", "name", "name", "CDATA", "content");
                a.addAttribute("", "path", "path", "CDATA", path);
                super.startPrefixMapping("msg", MSG);
                super.startElement(MSG, "attribute", "msg:attribute", a);
                Expansion.write(view, config, ResourcePath.of(path), options(expand), getContentHandler());
                super.endElement(MSG, "attribute", "msg:attribute");
                super.endPrefixMapping("msg");
            }
        };
        f.setContentHandler(next);
        return f;
    }

    /** The expansion of a query string ("with-ancestors=yes&amp;with-variants=jats"), as the store's API reads it. */
    static Expansion.Options options(String query) {
        if (query == null || query.isBlank()) return Expansion.Options.NONE;
        Map<String, List<String>> values = new HashMap<>();
        for (String pair : query.split("&")) {
            if (pair.isBlank()) continue;
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8).strip();
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            values.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
        }
        return Expansion.Options.parse(name -> {
            List<String> v = values.get(name);
            return v == null ? null : v.toArray(String[]::new);
        });
    }
}
