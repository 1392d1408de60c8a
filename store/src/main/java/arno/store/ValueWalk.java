package arno.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import net.sf.saxon.lib.ConversionRules;
import net.sf.saxon.om.AxisInfo;
import net.sf.saxon.om.NamespaceUri;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.pattern.NodeKindTest;
import net.sf.saxon.tree.iter.AxisIterator;

/**
 * Extracts what one stored document contributes to the cross-document indexes: how often each
 * element path occurs in it (the path summary) and its value index entries.
 *
 * <h2>Why a walk of the stored tree, after it is written</h2>
 * The alternative, matching while {@link DocumentWriter} streams the document in, would save one
 * pass over the records but tie the index definitions to the writer's hot loop, and a replaced or
 * deleted document would still need its old entries found again. Walking the stored tree serves
 * all three cases with one piece of code: a put walks the new document, a replace or delete walks
 * the old one (still readable in the write transaction, before its records are deleted) to find
 * exactly the entries to remove, so no per-document list of index keys is kept on disk. The cost
 * is one pass over the element records per put (and per replace, two); {@code perf/} is where to
 * measure it against an insert without indexes.
 *
 * <h2>Algorithm</h2>
 * One pass over the descendant elements in document order with a stack of the open ancestors
 * (popped until the top is the element's parent). Each element's path is identified by its
 * parent's path id and its name (a {@link Paths} id, persistent in the store); the ids and which
 * indexes match a path are memoised by (parent path, name code), so the per-element cost is a hash
 * lookup. A matching element's value and key paths are evaluated by child steps and an attribute
 * read, and each (key, value) combination becomes one entry; entries are collected in memory (a
 * document's entries are few) and written by the caller after the walk, never while reading pages.
 */
final class ValueWalk {

    /** Path ids: a path is its parent's id (0 for the document) and an expanded name. */
    interface Paths {
        int id(int parent, String prefix, String uri, String local);
    }

    /** An active index: its id in the store and its definition. */
    record Active(int id, IndexDefinition definition) {
    }

    /** What one document contributes: occurrences by path id, and value index entries. */
    record Contribution(long docId, Map<Integer, Long> paths, List<ValueKeys.Entry> entries) {
    }

    private static final class PathInfo {
        final int id;
        final IndexDefinition.Name name;
        final int[] matching;
        long count;
        int stamp;

        PathInfo(int id, IndexDefinition.Name name, int[] matching) {
            this.id = id;
            this.name = name;
            this.matching = matching;
        }
    }

    private final Paths paths;
    private final List<Active> indexes;
    private final ConversionRules rules;
    private final Map<Long, PathInfo> memo = new HashMap<>();
    private int stamp;

    ValueWalk(Paths paths, List<Active> indexes, ConversionRules rules) {
        this.paths = paths;
        this.indexes = List.copyOf(indexes);
        this.rules = rules;
    }

    List<Active> indexes() {
        return indexes;
    }

    Contribution walk(StoredTree tree) {
        stamp++;
        List<PathInfo> touched = new ArrayList<>();
        List<ValueKeys.Entry> entries = new ArrayList<>();
        long[] stackPos = new long[64];
        PathInfo[] stackPath = new PathInfo[64];
        IndexDefinition.Name[] stackName = new IndexDefinition.Name[64];
        int depth = 0;
        AxisIterator it = tree.root.iterateAxis(AxisInfo.DESCENDANT, NodeKindTest.ELEMENT);
        for (NodeInfo ni; (ni = it.next()) != null; ) {
            StoredNode n = (StoredNode) ni;
            long parent = n.parentPos();
            while (depth > 0 && stackPos[depth - 1] != parent) {
                depth--;
            }
            int parentId = depth == 0 ? 0 : stackPath[depth - 1].id;
            long memoKey = ((long) parentId << 32) | (n.code & 0xFFFFFFFFL);
            PathInfo p = memo.get(memoKey);
            if (p == null) {
                IndexDefinition.Name name = new IndexDefinition.Name(n.getPrefix(), n.getNamespaceUri().toString(),
                        n.getLocalPart());
                int id = paths.id(parentId, name.prefix(), name.uri(), name.local());
                p = new PathInfo(id, name, matching(stackName, depth, name));
                memo.put(memoKey, p);
            }
            if (p.stamp != stamp) {
                p.stamp = stamp;
                p.count = 0;
                touched.add(p);
            }
            p.count++;
            if (depth == stackPos.length) {
                stackPos = Arrays.copyOf(stackPos, depth * 2);
                stackPath = Arrays.copyOf(stackPath, depth * 2);
                stackName = Arrays.copyOf(stackName, depth * 2);
            }
            stackPos[depth] = n.pos;
            stackPath[depth] = p;
            stackName[depth] = p.name;
            depth++;
            for (int i : p.matching) {
                extract(indexes.get(i), n, tree.docId, entries);
            }
        }
        Map<Integer, Long> counts = new HashMap<>();
        for (PathInfo p : touched) {
            counts.put(p.id, p.count);
        }
        return new Contribution(tree.docId, counts, entries);
    }

    /** The indexes whose match path matches the path of ancestors {@code stack[0..depth)} then {@code name}. */
    private int[] matching(IndexDefinition.Name[] stack, int depth, IndexDefinition.Name name) {
        int[] out = new int[indexes.size()];
        int n = 0;
        for (int i = 0; i < indexes.size(); i++) {
            IndexDefinition.Path m = indexes.get(i).definition().match();
            List<IndexDefinition.Name> steps = m.steps();
            int len = depth + 1;
            if (m.anywhere() ? len < steps.size() : len != steps.size()) {
                continue;
            }
            boolean ok = steps.get(steps.size() - 1).equals(name);
            for (int s = steps.size() - 2, at = depth - 1; ok && s >= 0; s--, at--) {
                ok = steps.get(s).equals(stack[at]);
            }
            if (ok) {
                out[n++] = i;
            }
        }
        return Arrays.copyOf(out, n);
    }

    private void extract(Active a, StoredNode element, long docId, List<ValueKeys.Entry> entries) {
        IndexDefinition d = a.definition();
        List<String> values = strings(element, d.value());
        if (values.isEmpty()) {
            return;
        }
        List<String> keys = d.key() == null ? null : strings(element, d.key());
        for (String v : values) {
            Object typed = ValueKeys.typed(d, v, rules);
            if (typed == null) {
                continue;
            }
            if (keys == null) {
                entries.add(ValueKeys.entry(d, a.id(), null, typed, docId, element.pos));
            } else {
                for (String k : keys) {
                    entries.add(ValueKeys.entry(d, a.id(), d.normalised(k), typed, docId, element.pos));
                }
            }
        }
    }

    /** The string values of the nodes {@code path} selects from {@code from}. */
    static List<String> strings(NodeInfo from, IndexDefinition.Path path) {
        List<NodeInfo> nodes = List.of(from);
        for (IndexDefinition.Name step : path.steps()) {
            List<NodeInfo> next = new ArrayList<>();
            for (NodeInfo n : nodes) {
                AxisIterator c = n.iterateAxis(AxisInfo.CHILD, NodeKindTest.ELEMENT);
                for (NodeInfo ch; (ch = c.next()) != null; ) {
                    if (ch.getLocalPart().equals(step.local()) && ch.getNamespaceUri().toString().equals(step.uri())) {
                        next.add(ch);
                    }
                }
            }
            nodes = next;
            if (nodes.isEmpty()) {
                return List.of();
            }
        }
        List<String> out = new ArrayList<>(nodes.size());
        for (NodeInfo n : nodes) {
            if (path.attribute() != null) {
                String v = n.getAttributeValue(NamespaceUri.of(path.attribute().uri()), path.attribute().local());
                if (v != null) {
                    out.add(v);
                }
            } else {
                out.add(n.getStringValue());
            }
        }
        return out;
    }
}
