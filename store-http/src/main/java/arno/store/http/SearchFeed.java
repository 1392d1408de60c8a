package arno.store.http;

import arno.fulltext.FulltextIndex;
import arno.fulltext.Results;
import arno.fulltext.SearchRequest;
import arno.store.Store;
import arno.store.atom.Atom;
import arno.xml.ErrorMessage;
import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayOutputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * {@code GET /store/search?q=…}: the store's full-text index as an Atom feed with OpenSearch 1.1
 * elements (totalResults, startIndex, itemsPerPage, a Query of role request; first, previous and
 * next links), each hit an entry linking to the stored entry with its highlighted snippets as HTML
 * and its BM25 score (the OpenSearch relevance extension); and the OpenSearch description document
 * that tells feed readers and browsers how to ask. Parameters: {@code q}, {@code count} (1-100,
 * default 10), {@code startIndex} (from 1), {@code after} (deep pages: the next link carries it),
 * {@code sort} (relevance or date), and filters by field ({@code journal}, {@code year-from} ...).
 */
final class SearchFeed {

    static final String OPENSEARCH = "http://a9.com/-/spec/opensearch/1.1/";
    static final String RELEVANCE = "http://a9.com/-/opensearch/extensions/relevance/1.0/";
    static final String DESCRIPTION_TYPE = "application/opensearchdescription+xml";

    record Answer(String type, byte[] body) {}

    private SearchFeed() {
    }

    static Answer search(Store store, HttpServletRequest req, String base) {
        FulltextIndex index = store.attached(FulltextIndex.class);
        if (index == null) throw ErrorMessage.SEARCH_NOT_CONFIGURED.error();
        String q = req.getParameter("q");
        Map<String, List<String>> options = new LinkedHashMap<>();
        int startIndex = 1;
        int count = 10;
        for (Map.Entry<String, String[]> p : req.getParameterMap().entrySet()) {
            switch (p.getKey()) {
                case "q" -> { }
                case "count" -> count = number("count", p.getValue()[0]);
                case "startIndex" -> startIndex = number("startIndex", p.getValue()[0]);
                default -> options.put(p.getKey(), List.of(p.getValue()));
            }
        }
        if (startIndex < 1) throw ErrorMessage.SEARCH_OPTION.error("startIndex", startIndex + " is below 1 (the first hit is 1)");
        options.put("start", List.of(Integer.toString(startIndex - 1)));
        options.put("size", List.of(Integer.toString(count)));
        options.put("facets", List.of("false"));
        Results r = index.search(SearchRequest.of(q == null ? "" : q, options));
        String self = base + "/search" + (req.getQueryString() == null ? "" : "?" + req.getQueryString());
        int size = count;
        return new Answer(Atom.FEED_TYPE + ";charset=UTF-8", write(w -> feed(w, r, req, base, self, size)));
    }

    private static int number(String name, String v) {
        try {
            return Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            throw ErrorMessage.SEARCH_OPTION.error(name, "'" + v + "' is not a whole number");
        }
    }

    private static void feed(XMLStreamWriter w, Results r, HttpServletRequest req, String base, String self, int count)
            throws XMLStreamException {
        w.writeStartElement("", "feed", Atom.NS);
        w.writeDefaultNamespace(Atom.NS);
        w.writeNamespace("opensearch", OPENSEARCH);
        w.writeNamespace("relevance", RELEVANCE);
        text(w, Atom.NS, "title", "Search: " + r.query());
        text(w, Atom.NS, "id", self);
        text(w, Atom.NS, "updated", java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
        w.writeStartElement(Atom.NS, "author");
        text(w, Atom.NS, "name", "Arno");
        w.writeEndElement();
        link(w, "self", Atom.FEED_TYPE, self);
        link(w, "search", DESCRIPTION_TYPE, base + "/search/description");
        if (r.start() > 0) {
            link(w, "first", Atom.FEED_TYPE, page(base, req, "startIndex", "1"));
            link(w, "previous", Atom.FEED_TYPE, page(base, req, "startIndex", Integer.toString(Math.max(1, r.start() - count + 1))));
        }
        if (r.next() != null) {
            // Shallow pages by startIndex; past the deepest shallow page, by the token.
            link(w, "next", Atom.FEED_TYPE, r.start() >= 0 && r.start() + 2 * count <= SearchRequest.MAX_START
                    ? page(base, req, "startIndex", Integer.toString(r.start() + count + 1))
                    : page(base, req, "after", r.next()));
        }
        text(w, OPENSEARCH, "totalResults", Long.toString(r.total()));
        if (r.start() >= 0) text(w, OPENSEARCH, "startIndex", Integer.toString(r.start() + 1));
        text(w, OPENSEARCH, "itemsPerPage", Integer.toString(count));
        w.writeEmptyElement(OPENSEARCH, "Query");
        w.writeAttribute("role", "request");
        w.writeAttribute("searchTerms", r.query());
        if (r.start() >= 0) w.writeAttribute("startIndex", Integer.toString(r.start() + 1));
        w.writeAttribute("count", Integer.toString(count));
        for (Results.Hit h : r.hits()) {
            w.writeStartElement(Atom.NS, "entry");
            List<String> title = h.fields().get("title");
            text(w, Atom.NS, "title", title == null || title.isEmpty() ? h.path() : title.get(0));
            text(w, Atom.NS, "id", base + h.path() + ".atom");
            List<String> date = h.fields().get("date");
            text(w, Atom.NS, "updated", date == null || date.isEmpty() ? "1970-01-01T00:00:00Z" : date.get(0));
            link(w, "alternate", Atom.ENTRY_TYPE, base + h.path() + ".atom");
            if (!h.snippets().isEmpty()) {
                w.writeStartElement(Atom.NS, "summary");
                w.writeAttribute("type", "html");
                w.writeCharacters(html(h.snippets())); // HTML as text: the writer escapes it once more
                w.writeEndElement();
            }
            text(w, RELEVANCE, "score", Float.toString(h.score()));
            w.writeEndElement();
        }
        w.writeEndElement();
    }

    /** The snippets as HTML: text escaped, matches in {@code <b>}, passages joined by an ellipsis. */
    static String html(List<Results.Snippet> snippets) {
        List<String> passages = new ArrayList<>();
        for (Results.Snippet s : snippets) {
            StringBuilder b = new StringBuilder();
            for (Results.Part p : s.parts()) {
                String t = p.text().replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
                b.append(p.match() ? "<b>" + t + "</b>" : t);
            }
            passages.add(b.toString().strip());
        }
        return String.join(" … ", passages);
    }

    /** This search's URL with {@code name} set to {@code value} (and the other paging parameter dropped). */
    private static String page(String base, HttpServletRequest req, String name, String value) {
        StringBuilder b = new StringBuilder(base).append("/search?");
        boolean first = true;
        for (Map.Entry<String, String[]> p : req.getParameterMap().entrySet()) {
            if (p.getKey().equals("startIndex") || p.getKey().equals("after")) continue;
            for (String v : p.getValue()) {
                if (!first) b.append('&');
                b.append(enc(p.getKey())).append('=').append(enc(v));
                first = false;
            }
        }
        return b.append(first ? "" : "&").append(name).append('=').append(enc(value)).toString();
    }

    static Answer description(String base) {
        return new Answer(DESCRIPTION_TYPE + ";charset=UTF-8", write(w -> {
            w.writeStartElement("", "OpenSearchDescription", OPENSEARCH);
            w.writeDefaultNamespace(OPENSEARCH);
            text(w, OPENSEARCH, "ShortName", "Arno store");
            text(w, OPENSEARCH, "Description", "Full-text search of the entries in this Arno store");
            w.writeEmptyElement(OPENSEARCH, "Url");
            w.writeAttribute("type", Atom.FEED_TYPE);
            w.writeAttribute("template", base + "/search?q={searchTerms}&count={count?}&startIndex={startIndex?}");
            w.writeAttribute("indexOffset", "1");
            w.writeEmptyElement(OPENSEARCH, "Url");
            w.writeAttribute("type", DESCRIPTION_TYPE);
            w.writeAttribute("rel", "self");
            w.writeAttribute("template", base + "/search/description");
            w.writeEmptyElement(OPENSEARCH, "Query");
            w.writeAttribute("role", "example");
            w.writeAttribute("searchTerms", "river");
            text(w, OPENSEARCH, "InputEncoding", "UTF-8");
            text(w, OPENSEARCH, "OutputEncoding", "UTF-8");
            w.writeEndElement();
        }));
    }

    private static void text(XMLStreamWriter w, String ns, String name, String value) throws XMLStreamException {
        w.writeStartElement(ns, name);
        w.writeCharacters(value);
        w.writeEndElement();
    }

    private static void link(XMLStreamWriter w, String rel, String type, String href) throws XMLStreamException {
        w.writeEmptyElement(Atom.NS, "link");
        w.writeAttribute("rel", rel);
        w.writeAttribute("type", type);
        w.writeAttribute("href", href);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private interface Body {
        void write(XMLStreamWriter w) throws XMLStreamException;
    }

    private static byte[] write(Body body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        try {
            XMLStreamWriter w = XMLOutputFactory.newFactory().createXMLStreamWriter(out, "UTF-8");
            w.writeStartDocument("UTF-8", "1.0");
            body.write(w);
            w.writeEndDocument();
            w.close();
        } catch (XMLStreamException e) {
            throw ErrorMessage.ANSWER_NOT_WRITTEN.error(e, e.getMessage());
        }
        return out.toByteArray();
    }
}
