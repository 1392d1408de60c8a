package arno.store.atom;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmValue;

import arno.store.Snapshot;
import arno.store.Store;
import arno.store.StoreOptions;

/** Stores in temp folders, entries as text, and reading stored entries back for the service's tests. */
final class Fixtures {
    private Fixtures() {
    }

    static final StoreOptions SMALL = StoreOptions.defaults().mapSize(256L << 20);

    static Store store(Path dir) {
        return Store.open(dir.resolve("store"), SMALL);
    }

    /** An Atom entry of {@code kind} (null: none) with a title and {@code more} markup inside. */
    static byte[] entry(String kind, String title, String... more) {
        StringBuilder b = new StringBuilder("<entry xmlns=\"http://www.w3.org/2005/Atom\" xmlns:arno=\"urn:arno:atom\">");
        if (title != null) b.append("<title>").append(title).append("</title>");
        if (kind != null) b.append("<category scheme=\"urn:arno:kind\" term=\"").append(kind).append("\"/>");
        for (String m : more) b.append(m);
        return b.append("</entry>").toString().getBytes(StandardCharsets.UTF_8);
    }

    static String link(String role, String href) {
        return "<link rel=\"related\" arno:role=\"" + role + "\" href=\"" + href + "\"/>";
    }

    static ByteArrayInputStream bytes(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    static String export(Store store, String uri) {
        try (Snapshot s = store.read()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            s.export(uri, out);
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    private static final Processor PROCESSOR = new Processor(false);

    /** The string values of an XPath over the stored document (prefixes a, arno bound). */
    static List<String> xpath(Store store, String uri, String path) {
        try {
            XdmNode doc = PROCESSOR.newDocumentBuilder().build(new javax.xml.transform.stream.StreamSource(
                    new java.io.StringReader(export(store, uri))));
            XPathCompiler c = PROCESSOR.newXPathCompiler();
            c.declareNamespace("a", Atom.NS);
            c.declareNamespace("arno", Atom.ARNO_NS);
            XdmValue v = c.evaluate(path, doc);
            List<String> out = new ArrayList<>();
            v.forEach(i -> out.add(i.getStringValue()));
            return out;
        } catch (net.sf.saxon.s9api.SaxonApiException e) {
            throw new AssertionError(e);
        }
    }

    /** The typed links of the stored entry at {@code path}: "role href" each. */
    static List<String> links(Store store, ResourcePath path) {
        return xpath(store, path.entryDocument(), "/a:entry/a:link[@rel='related']/concat(@arno:role, ' ', @href)");
    }
}
