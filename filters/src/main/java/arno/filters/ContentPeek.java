package arno.filters;

import arno.pipeline.RequestScope;
import arno.pipeline.SaxStage;
import arno.store.atom.ResourcePath;
import java.util.ArrayList;
import java.util.List;
import org.xml.sax.Attributes;
import org.xml.sax.ContentHandler;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.AttributesImpl;
import org.xml.sax.helpers.XMLFilterImpl;

/**
 * A standard filter, the resolver of the resource model: maps the request to the store resource
 * it names and tells the next stages where that resource is and how to expand it, before anything
 * reads it. Appends to req:request
 *
 * <pre>
 * &lt;msg:attribute name="content-peek" path="/journals/ja/v1/i1" kind="store" expand="with-descendants=1"/&gt;
 * </pre>
 *
 * <ul>
 * <li>{@code path}: the resource, the site parameter {@code content-base} (e.g. {@code /journals/ja};
 * none is the root) followed by the values of the route's variables in the order of its pattern:
 * route {@code /{volume}/{issue}} at {@code /v1/i1} names {@code /journals/ja/v1/i1}; a
 * {@code {rest*}} variable gives its segments. Literal segments of the pattern (the {@code full} of
 * {@code /{volume}/{issue}/{article}/full}) name no resource: that route shows the article.</li>
 * <li>{@code kind}: {@code store} when the request's view of the store holds the entry
 * {@code PATH.atom}, {@code file} when the content folder does (the same layout as files),
 * {@code none} otherwise, and always when a segment is not an entry name
 * ({@code [A-Za-z0-9][A-Za-z0-9_-]{0,99}}), so no request can name other documents or climb out.</li>
 * <li>{@code expand}: how {@link ContentFetch} expands the entry, as query parameters of the store's
 * API ({@code with-ancestors=yes}, {@code with-descendants=N|all}, {@code with-variants=ROLE}, joined
 * with {@code &}): the site parameter {@code content-expand.ROUTE} for the route named ROUTE, else
 * {@code content-expand}, else absent (the entry alone).</li>
 * </ul>
 *
 * Declared in site.xml as {@code <filter java="arno.filters.ContentPeek"/>}.
 *
 * <p>Streams: it remembers the parameters, the route and its variables as they pass (req:site and
 * req:route come before the end of req:request) and writes its element just before the end tag of
 * req:request, so the request is never held as a tree. Reads only whether the entry exists
 * ({@link RequestScope#locate}), through the request's own view of the store.
 */
public final class ContentPeek implements SaxStage {
    static final String REQ = "urn:arno:request";
    static final String MSG = "urn:arno:message";
    /** The site parameter naming the resource the site's paths start from. */
    static final String BASE = "content-base";
    /** The site parameter giving the default expansion; {@code content-expand.ROUTE} overrides it per route. */
    static final String EXPAND = "content-expand";

    @Override
    public ContentHandler open(RequestScope scope, ContentHandler next) {
        XMLFilterImpl f = new XMLFilterImpl() {
            private int depth;
            private String base = "";
            /** The content-expand parameters by name (site params come before the route is known). */
            private final java.util.Map<String, String> expands = new java.util.HashMap<>();
            private String route;
            private final List<String> variables = new ArrayList<>();
            /** The text of the parameter or variable being read, or null. */
            private StringBuilder text;
            /** What {@link #text} is: a parameter name, or null for a route variable. */
            private String param;

            @Override
            public void startElement(String uri, String local, String qName, Attributes atts) throws SAXException {
                depth++;
                if (REQ.equals(uri)) {
                    if (depth == 2 && local.equals("route")) {
                        route = atts.getValue("", "name");
                    } else if (depth == 3 && local.equals("param")) {
                        String name = atts.getValue("", "name");
                        if (name != null && (name.equals(BASE) || name.startsWith(EXPAND))) {
                            text = new StringBuilder();
                            param = name;
                        }
                    } else if (depth == 3 && local.equals("variable")) {
                        text = new StringBuilder();
                        param = null;
                    }
                }
                super.startElement(uri, local, qName, atts);
            }

            @Override
            public void characters(char[] ch, int start, int length) throws SAXException {
                if (text != null) text.append(ch, start, length);
                super.characters(ch, start, length);
            }

            @Override
            public void endElement(String uri, String local, String qName) throws SAXException {
                if (depth == 3 && text != null) {
                    String value = text.toString();
                    if (param == null) variables.add(value);
                    else if (param.equals(BASE)) base = value.strip();
                    else expands.put(param, value.strip());
                    text = null;
                }
                if (--depth == 0) peek();
                super.endElement(uri, local, qName);
            }

            private void peek() throws SAXException {
                StringBuilder path = new StringBuilder(64);
                boolean named = append(path, base, true);
                for (String v : variables) named &= append(path, v, false);
                String resource = path.toString();
                String kind = named && !resource.isEmpty() ? kind(scope.locate(resource + ".atom")) : "none";
                String how = route != null && expands.containsKey(EXPAND + "." + route)
                        ? expands.get(EXPAND + "." + route) : expands.get(EXPAND);
                AttributesImpl a = new AttributesImpl();
                a.addAttribute("", "name", "name", "CDATA", "content-peek");
                a.addAttribute("", "path", "path", "CDATA", resource.isEmpty() ? "/" : resource);
                a.addAttribute("", "kind", "kind", "CDATA", kind);
                if (how != null && !how.isEmpty()) a.addAttribute("", "expand", "expand", "CDATA", how);
                super.startPrefixMapping("msg", MSG);
                super.startElement(MSG, "attribute", "msg:attribute", a);
                super.endElement(MSG, "attribute", "msg:attribute");
                super.endPrefixMapping("msg");
            }
        };
        f.setContentHandler(next);
        return f;
    }

    /**
     * Appends the segments of {@code value} to {@code path}, each after a slash; says whether each
     * is an entry name ({@link ResourcePath#isName}). Empty segments are skipped in the base
     * ({@code skipEmpty}), and make a variable's value name nothing.
     */
    private static boolean append(StringBuilder path, String value, boolean skipEmpty) {
        boolean named = true;
        for (int start = 0, end; start <= value.length(); start = end + 1) {
            end = value.indexOf('/', start);
            if (end < 0) end = value.length();
            if (skipEmpty && end == start) continue;
            path.append('/').append(value, start, end);
            named &= ResourcePath.isName(value, start, end);
        }
        return named;
    }

    private static String kind(RequestScope.Content content) {
        return switch (content) {
            case STORE -> "store";
            case FILE -> "file";
            case NONE -> "none";
        };
    }
}
