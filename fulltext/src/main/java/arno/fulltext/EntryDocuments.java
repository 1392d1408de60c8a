package arno.fulltext;

import arno.store.Snapshot;
import arno.store.atom.Atom;
import arno.store.atom.ResourcePath;
import arno.xml.ErrorMessage;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import net.sf.saxon.om.AxisInfo;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.om.TreeInfo;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XPathExecutable;
import net.sf.saxon.s9api.XPathSelector;
import net.sf.saxon.s9api.XdmItem;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.tree.iter.AxisIterator;
import net.sf.saxon.type.Type;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.IntPoint;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.facet.FacetsConfig;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesFacetField;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.util.BytesRef;

/**
 * The Lucene document of one entry under one configuration: its fields' XPaths evaluated over the
 * entry ({@code PATH.atom}) and its XML variants, read from one store snapshot. Not thread-safe
 * (the follower's thread uses it).
 */
final class EntryDocuments {

    /** The key field: the entry's resource path ({@code /journals/ja/v1/i1/a1}). */
    static final String PATH = "_path";
    /** The entry's kind. */
    static final String KIND = "_kind";
    /** Text: positions and offsets in the postings, so snippets come from the index alone. */
    static final FieldType TEXT = new FieldType();

    static {
        TEXT.setTokenized(true);
        TEXT.setStored(true);
        TEXT.setIndexOptions(IndexOptions.DOCS_AND_FREQS_AND_POSITIONS_AND_OFFSETS);
        TEXT.freeze();
    }

    /** The longest keyword value indexed, in characters (three UTF-8 bytes each at most: far inside Lucene's limits). */
    static final int MAX_KEYWORD = 1_000;

    private final FulltextConfig config;
    private final Processor processor;
    private final FacetsConfig facets;
    private final XPathExecutable kindPath;
    private final List<XPathExecutable> selects = new ArrayList<>();

    EntryDocuments(FulltextConfig config, Processor processor, String systemId) {
        this.config = config;
        this.processor = processor;
        this.facets = facetsConfig(config);
        try {
            XPathCompiler c = processor.newXPathCompiler();
            c.declareNamespace("atom", Atom.NS);
            kindPath = c.compile("string(/atom:entry/atom:category[@scheme = '" + Atom.KIND_SCHEME + "'][1]/@term)");
        } catch (SaxonApiException e) {
            throw new IllegalStateException(e);
        }
        for (FulltextConfig.Field f : config.fields()) selects.add(select(processor, f, systemId));
    }

    /** The field's XPath compiled with the prefixes in scope on it; FULLTEXT_FIELD_XPATH when it does not compile. */
    static XPathExecutable select(Processor processor, FulltextConfig.Field f, String systemId) {
        XPathCompiler c = processor.newXPathCompiler();
        for (Map.Entry<String, String> ns : f.namespaces().entrySet()) c.declareNamespace(ns.getKey(), ns.getValue());
        try {
            return c.compile(f.select());
        } catch (SaxonApiException e) {
            throw ErrorMessage.FULLTEXT_FIELD_XPATH.error(e, systemId, f.name(), f.select(), e.getMessage());
        }
    }

    /** Every facet field is multi-valued (keywords are). */
    static FacetsConfig facetsConfig(FulltextConfig config) {
        FacetsConfig fc = new FacetsConfig();
        for (FulltextConfig.Field f : config.fields()) if (f.facet()) fc.setMultiValued(f.name(), true);
        return fc;
    }

    /** The resource whose entry or variant is stored at {@code storePath}, or null for other documents. */
    static String resourceOf(String storePath) {
        ResourcePath.Document d = ResourcePath.document(storePath);
        return d == null ? null : d.resource().path();
    }

    /** Whether the configuration indexes the entry at {@code path} as {@code snapshot} has it. */
    boolean selected(Snapshot snapshot, String path) {
        String entryUri = path + "." + Atom.ENTRY_EXTENSION;
        if (!snapshot.exists(entryUri)) return false;
        XdmNode entry = node(snapshot, entryUri);
        return entry != null && config.indexes(path, evaluate(kindPath, entry, false).stream().findFirst().orElse(""));
    }

    /**
     * The document of the entry at {@code path} as {@code snapshot} has it, or null when there is
     * no entry there or the configuration does not index it.
     */
    Document build(Snapshot snapshot, String path) {
        String entryUri = path + "." + Atom.ENTRY_EXTENSION;
        if (!snapshot.exists(entryUri)) return null;
        XdmNode entry = node(snapshot, entryUri);
        if (entry == null) return null;
        String kind = evaluate(kindPath, entry, false).stream().findFirst().orElse("");
        if (!config.indexes(path, kind)) return null;
        Document doc = new Document();
        doc.add(new StringField(PATH, path, Field.Store.YES));
        doc.add(new SortedDocValuesField(PATH, new BytesRef(path)));
        doc.add(new StringField(KIND, kind, Field.Store.YES));
        for (int i = 0; i < config.fields().size(); i++) {
            FulltextConfig.Field f = config.fields().get(i);
            XdmNode context = entry;
            if (f.variant() != null) {
                String variant = path + "." + f.variant();
                context = snapshot.exists(variant) ? node(snapshot, variant) : null;
            }
            if (context == null) continue;
            List<String> values = evaluate(selects.get(i), context, f.type() == FulltextConfig.Type.TEXT);
            add(doc, f, values);
        }
        try {
            return facets.build(doc);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private void add(Document doc, FulltextConfig.Field f, List<String> values) {
        boolean first = true;
        for (String raw : values) {
            String v = raw.strip();
            if (v.isEmpty()) continue;
            switch (f.type()) {
                case TEXT -> doc.add(new Field(f.name(), v, TEXT));
                case KEYWORD -> {
                    // Lucene refuses the whole document for one term over 32,766 bytes (a facet's over 8,191
                    // characters), and the index would stop at it: a value that long is no keyword, left out.
                    if (v.length() > MAX_KEYWORD) continue;
                    doc.add(new StringField(f.name(), v.toLowerCase(Locale.ROOT), Field.Store.NO));
                    doc.add(new StoredField(f.name(), v));
                    if (f.facet()) doc.add(new SortedSetDocValuesFacetField(f.name(), v));
                }
                case YEAR -> {
                    int y;
                    try {
                        y = Integer.parseInt(v);
                    } catch (NumberFormatException e) {
                        continue; // not a year: not indexed, as a value index leaves NaN out
                    }
                    doc.add(new IntPoint(f.name(), y));
                    doc.add(new StoredField(f.name(), y));
                    if (f.facet()) doc.add(new SortedSetDocValuesFacetField(f.name(), Integer.toString(y)));
                }
                case DATE -> {
                    long day;
                    try {
                        day = LocalDate.parse(v.length() > 10 ? v.substring(0, 10) : v).toEpochDay();
                    } catch (DateTimeParseException | StringIndexOutOfBoundsException e) {
                        continue;
                    }
                    doc.add(new LongPoint(f.name(), day));
                    doc.add(new StoredField(f.name(), v));
                    // Sorting reads one value per entry: the first.
                    if (first) doc.add(new NumericDocValuesField(f.name(), day));
                }
            }
            first = false;
        }
    }

    private XdmNode node(Snapshot snapshot, String uri) {
        TreeInfo t;
        try {
            t = snapshot.document(uri, processor.getUnderlyingConfiguration());
        } catch (RuntimeException binaryOrGone) {
            return null;
        }
        return new XdmNode(t.getRootNode());
    }

    /**
     * The values of {@code x} over {@code context}: each item's string value, except that with
     * {@code blocks} (text fields) an element or document keeps its blocks apart ({@link #text}).
     */
    private static List<String> evaluate(XPathExecutable x, XdmNode context, boolean blocks) {
        List<String> out = new ArrayList<>();
        try {
            XPathSelector s = x.load();
            s.setContextItem(context);
            for (XdmItem item : s.evaluate()) {
                if (blocks && item.getUnderlyingValue() instanceof NodeInfo n
                        && (n.getNodeKind() == Type.ELEMENT || n.getNodeKind() == Type.DOCUMENT)) {
                    out.add(text(n));
                } else {
                    out.add(item.getStringValue());
                }
            }
        } catch (SaxonApiException e) {
            // A dynamic error (a type error on this entry) leaves the field empty for it, as an absent value would.
        }
        return out;
    }

    /**
     * Elements that run inside a line of text: their text joins the text around them as it is
     * ({@code H<sub>2</sub>O} is one word). Every other element is a block whose start and end
     * separate words: a list of the inline ones rather than of the blocks, because a space too
     * many at an unknown element splits a word only where markup sits inside one, which is rare,
     * while a space too few at an unknown block merges the last word of every table cell, title or
     * paragraph with the next one's. JATS and (X)HTML names (with DocBook's and TEI's few), by local
     * name in any namespace: JATS has none, XHTML its own, and the names mean the same in both.
     */
    static final Set<String> INLINE = Set.of(
            // JATS
            "italic", "bold", "sub", "sup", "sc", "monospace", "underline", "overline", "roman", "sans-serif", "strike",
            "styled-content", "named-content", "xref", "ext-link", "uri", "email", "abbrev", "inline-formula",
            "inline-graphic", "private-char", "target", "x", "fixed-case",
            // (X)HTML
            "a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "data", "del", "dfn", "em", "font", "i", "ins", "kbd",
            "mark", "q", "s", "samp", "small", "span", "strong", "time", "tt", "u", "var", "wbr",
            // DocBook, TEI
            "emphasis", "phrase", "literal", "hi");

    /**
     * The text of {@code node}: its descendant text nodes joined, with one space between two that
     * a block element's start or end lies between (unless either side has whitespace there), so
     * that {@code <td>Site</td><td>Nitrate</td>} is two words where its string value is one.
     * Comments and processing instructions are not text, as in the string value. Walked with a
     * stack of child iterators, not recursion: a deep document cannot overflow the follower's stack.
     */
    static String text(NodeInfo node) {
        StringBuilder b = new StringBuilder();
        Deque<AxisIterator> open = new ArrayDeque<>();
        Deque<Boolean> block = new ArrayDeque<>();
        open.push(node.iterateAxis(AxisInfo.CHILD));
        block.push(false);
        boolean apart = false;
        while (!open.isEmpty()) {
            NodeInfo n = open.peek().next();
            if (n == null) {
                open.pop();
                if (block.pop()) apart = true;
                continue;
            }
            if (n.getNodeKind() == Type.ELEMENT) {
                boolean isBlock = !INLINE.contains(n.getLocalPart());
                if (isBlock) apart = true;
                open.push(n.iterateAxis(AxisInfo.CHILD));
                block.push(isBlock);
            } else if (n.getNodeKind() == Type.TEXT) {
                String t = n.getStringValue();
                if (t.isEmpty()) continue;
                if (apart && !b.isEmpty() && !Character.isWhitespace(b.charAt(b.length() - 1))
                        && !Character.isWhitespace(t.charAt(0))) {
                    b.append(' ');
                }
                apart = false;
                b.append(t);
            }
        }
        return b.toString();
    }
}
