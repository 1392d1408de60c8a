package arno.filters;

import arno.pipeline.RequestScope;
import arno.pipeline.SaxStage;
import arno.xml.DocumentStore;
import arno.xml.ErrorCode;
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
 *   &lt;entry xmlns="http://www.w3.org/2005/Atom"&gt;… &lt;link rel="down" href="/journals/ja/v1/i1/"&gt;&lt;entry&gt;…&lt;/entry&gt;…&lt;/link&gt;&lt;/entry&gt;
 * &lt;/msg:attribute&gt;
 * </pre>
 *
 * The expansion is the store API's (with-ancestors, with-descendants, with-variants), as the
 * content-peek attribute's {@code expand} says. It reads the request's own view: the store's view
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
                    throw ErrorCode.INTERNAL.error("ContentFetch runs only as a pipeline stage (no Saxon configuration reached it)");
                }
                AttributesImpl a = new AttributesImpl();
                a.addAttribute("", "name", "name", "CDATA", "content");
                a.addAttribute("", "path", "path", "CDATA", path);
                super.startPrefixMapping("msg", MSG);
                super.startElement(MSG, "attribute", "msg:attribute", a);
                Expand.Options o = Expand.Options.parse(expand);
                new Expand(view, config, getContentHandler()).entry(path, o.ancestors(), o.descendants());
                super.endElement(MSG, "attribute", "msg:attribute");
                super.endPrefixMapping("msg");
            }
        };
        f.setContentHandler(next);
        return f;
    }
}
