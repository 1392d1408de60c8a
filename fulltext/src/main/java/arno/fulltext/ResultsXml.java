package arno.fulltext;

import arno.xml.StoreFunctions;
import java.util.List;
import java.util.Map;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * A page of hits as the element {@code store:results} (namespace {@value StoreFunctions#NS},
 * schema {@value #SCHEMA}), written to any {@link XMLStreamWriter}: a Saxon tree for
 * {@code store:ft-search}, bytes for HTTP. Text goes through the writer, which escapes it.
 */
public final class ResultsXml {

    public static final String SCHEMA = "/arno/schema/results.xsd";
    private static final String P = StoreFunctions.PREFIX;
    private static final String NS = StoreFunctions.NS;

    private ResultsXml() {
    }

    public static void write(Results r, XMLStreamWriter w) throws XMLStreamException {
        w.setPrefix(P, NS);
        w.writeStartElement(P, "results", NS);
        w.writeNamespace(P, NS);
        w.writeAttribute("query", r.query());
        w.writeAttribute("total", Long.toString(r.total()));
        if (!r.exact()) w.writeAttribute("approximate", "true");
        if (r.start() >= 0) w.writeAttribute("start", Integer.toString(r.start()));
        w.writeAttribute("size", Integer.toString(r.size()));
        w.writeAttribute("version", Long.toString(r.version()));
        if (r.next() != null) w.writeAttribute("next", r.next());
        for (Results.Hit h : r.hits()) {
            w.writeStartElement(P, "hit", NS);
            w.writeAttribute("path", h.path());
            w.writeAttribute("score", Float.toString(h.score()));
            for (Map.Entry<String, List<String>> f : h.fields().entrySet()) {
                for (String v : f.getValue()) {
                    w.writeStartElement(P, "field", NS);
                    w.writeAttribute("name", f.getKey());
                    w.writeCharacters(v);
                    w.writeEndElement();
                }
            }
            for (Results.Snippet s : h.snippets()) {
                w.writeStartElement(P, "snippet", NS);
                w.writeAttribute("field", s.field());
                for (Results.Part part : s.parts()) {
                    if (part.match()) {
                        w.writeStartElement(P, "match", NS);
                        w.writeCharacters(part.text());
                        w.writeEndElement();
                    } else {
                        w.writeCharacters(part.text());
                    }
                }
                w.writeEndElement();
            }
            w.writeEndElement();
        }
        for (Results.Facet f : r.facets()) {
            w.writeStartElement(P, "facet", NS);
            w.writeAttribute("field", f.field());
            if (!f.exact()) w.writeAttribute("approximate", "true");
            for (Results.Count c : f.values()) {
                w.writeStartElement(P, "value", NS);
                w.writeAttribute("count", Long.toString(c.count()));
                w.writeCharacters(c.value());
                w.writeEndElement();
            }
            w.writeEndElement();
        }
        w.writeEndElement();
    }
}
