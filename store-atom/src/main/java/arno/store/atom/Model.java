package arno.store.atom;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import net.sf.saxon.s9api.XdmNode;

import arno.store.DocumentInfo;
import arno.store.Snapshot;
import arno.xml.ArnoException;
import arno.xml.ErrorMessage;
import arno.xml.Where;

/**
 * The introspection documents of one store version: every {@link Kind} by name. Immutable.
 *
 * <p>Built from the documents under {@code /_model/} and cached by {@link AtomStore}: a model is
 * rebuilt only when one of those documents changed (each document's version is its key), and
 * then only the changed documents are parsed again. A document that does not parse or validate
 * does not stop the others: asking for its kind raises its error.
 */
public final class Model {
    private final Map<String, Kind> kinds;
    private final Map<String, ArnoException> broken;
    /** Store path → version of each document this model was read from. */
    private final Map<String, Long> versions;

    private Model(Map<String, Kind> kinds, Map<String, ArnoException> broken, Map<String, Long> versions) {
        this.kinds = Collections.unmodifiableMap(kinds);
        this.broken = Collections.unmodifiableMap(broken);
        this.versions = Collections.unmodifiableMap(versions);
    }

    /** The kind named {@code name}, or null when the store has no (readable) document for it. */
    public Kind kind(String name) {
        return kinds.get(name);
    }

    /** The names of the kinds that have a readable document. */
    public Set<String> kinds() {
        return kinds.keySet();
    }

    /** The kind of the root ({@code /_model/root.xml}), which says which kinds may be top-level entries. */
    public Kind root() {
        return require(Atom.ROOT_KIND, "the root");
    }

    /**
     * The kind {@code name}; UNPROCESSABLE when there is no document for it, or its document's
     * own error when it cannot be read. {@code forWhat} says who needs it.
     */
    Kind require(String name, String forWhat) {
        Kind k = kinds.get(name);
        if (k != null) return k;
        ArnoException e = broken.get(name);
        if (e != null) {
            throw ErrorMessage.KIND_UNREADABLE.error(e, name, Introspection.path(name), forWhat, e.getMessage()).at(e.where());
        }
        throw ErrorMessage.NO_KIND.error(name, Introspection.path(name), forWhat)
                .at(Where.at("store:" + Introspection.path(name)));
    }

    /** Whether this model was read from exactly the model documents {@code s} has. */
    boolean current(Snapshot s) {
        var uris = s.uris(Atom.MODEL_FOLDER);
        if (uris.size() != versions.size()) return false;
        for (String u : uris) {
            Long v = versions.get(u);
            DocumentInfo info = s.info(u);
            if (v == null || info == null || info.version() != v) return false;
        }
        return true;
    }

    /** The model {@code s} sees; documents unchanged since {@code previous} (may be null) are not read again. */
    static Model load(Snapshot s, AtomXml xml, Model previous) {
        Map<String, Kind> kinds = new LinkedHashMap<>();
        Map<String, ArnoException> broken = new LinkedHashMap<>();
        Map<String, Long> versions = new LinkedHashMap<>();
        for (String uri : s.uris(Atom.MODEL_FOLDER)) {
            String name = Introspection.kindOf(uri);
            DocumentInfo info = s.info(uri);
            if (name == null || info == null) continue;
            versions.put(uri, info.version());
            if (previous != null && Long.valueOf(info.version()).equals(previous.versions.get(uri))) {
                Kind k = previous.kinds.get(name);
                if (k != null) {
                    kinds.put(name, k);
                    continue;
                }
                ArnoException e = previous.broken.get(name);
                if (e != null) {
                    broken.put(name, e);
                    continue;
                }
            }
            try {
                XdmNode stored = new XdmNode(s.document(uri, xml.config).getRootNode());
                byte[] bytes = xml.serialize(stored).getBytes(StandardCharsets.UTF_8);
                kinds.put(name, Introspection.parse(xml, bytes, name, "store:" + uri));
            } catch (ArnoException e) {
                broken.put(name, e);
            }
        }
        return new Model(kinds, broken, versions);
    }

    @Override
    public String toString() {
        return "Model" + kinds.keySet() + (broken.isEmpty() ? "" : " broken " + broken.keySet());
    }
}
