package arno.store;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

import net.sf.saxon.Configuration;
import net.sf.saxon.lib.NamespaceConstant;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XPathExecutable;
import net.sf.saxon.s9api.XPathSelector;
import net.sf.saxon.s9api.XdmNode;

import arno.xml.ArnoException;
import arno.xml.ErrorMessage;
import arno.xml.Where;

/**
 * A structured search over one snapshot: the XML documents under a folder for which an XPath
 * condition, evaluated with the document node as context item, is true; by definition
 * {@code collection('store:' || $under)[CONDITION]}, in the same (path) order.
 *
 * <p>Correct by construction: the {@link Planner} narrows the documents, through value indexes, to
 * a superset of those that match ({@link Plan}), and each candidate is then verified by the whole
 * condition compiled by Saxon. The index decides speed, never results: the one difference from
 * plain XPath is that a dynamic error the condition would raise on a document (comparing
 * {@code 'abc'} with a number, say) is raised only if that document is a candidate.
 *
 * <p>One run: {@link #iterator} verifies lazily, a candidate at a time, so results stream to their
 * consumer and a report over the whole store never holds them all. Not thread-safe; valid while its
 * snapshot is open.
 */
public final class Search {

    /** Told what a running search does: for {@code --explain}, progress displays and time limits. */
    public interface Listener {
        /** Before the first candidate: the plan is known. */
        default void planned(Search search) {
        }

        /** After each candidate is verified; {@code total} is the number of candidates. */
        default void examined(long done, long total, String uri) {
        }

        /** After the last candidate. */
        default void finished(Search search) {
        }
    }

    /** What a search did: candidates, verified so far, results so far, and its times in nanoseconds. */
    public record Stats(long candidates, long examined, long results, long planNanos, long runNanos) {
    }

    private static final Listener NONE = new Listener() {
    };

    private final Snapshot snapshot;
    private final String under;
    private final String condition;
    private final Configuration config;
    private final XPathExecutable verifier;
    private final Plan plan;
    private final List<String> candidates;
    private final long total;
    private final long planNanos;
    private long examined;
    private long results;
    private long runNanos;
    private boolean used;

    private Search(Snapshot snapshot, String under, String condition, Configuration config, XPathExecutable verifier,
            Planner.Planned planned, long total, long planNanos) {
        this.snapshot = snapshot;
        this.under = under;
        this.condition = condition;
        this.config = config;
        this.verifier = verifier;
        this.plan = planned.plan();
        this.candidates = planned.candidates();
        this.total = total;
        this.planNanos = planNanos;
    }

    /** Parses, compiles and plans; BAD_PARAMETER for a folder or condition it cannot take. */
    static Search prepare(Snapshot s, String under, String condition, Map<String, String> namespaces,
            Configuration config) {
        long start = System.nanoTime();
        if (under == null || !under.startsWith("/")) {
            throw ErrorMessage.SEARCH_FOLDER.error(under).at(Where.at(Store.SCHEME + under));
        }
        Map<String, String> ns = new java.util.HashMap<>(namespaces);
        ns.putIfAbsent("xs", NamespaceConstant.SCHEMA);
        ns.putIfAbsent("fn", NamespaceConstant.FN);
        SearchParser.Expr expr = SearchParser.parse(condition, ns, s.store().ownConfiguration().getConversionRules());
        XPathExecutable verifier = compile(condition, ns, config);
        Planner.Node tree = Planner.tree(expr);
        Planner.Matches matches = Planner.match(tree, s.indexes().indexes(),
                s.store().ownConfiguration().getConversionRules());
        Planner.Planned planned = Planner.plan(s, under, tree, matches);
        long total = planned.candidates() != null ? planned.candidates().size() : s.count(under);
        return new Search(s, under, condition, config, verifier, planned, total, System.nanoTime() - start);
    }

    private static XPathExecutable compile(String condition, Map<String, String> ns, Configuration config) {
        XPathCompiler c = new Processor(config).newXPathCompiler();
        for (Map.Entry<String, String> e : ns.entrySet()) {
            c.declareNamespace(e.getKey(), e.getValue());
        }
        try {
            return c.compile(condition);
        } catch (SaxonApiException e) {
            throw ErrorMessage.SEARCH_NOT_COMPILED.error(e, condition.strip(), e.getMessage()).at(Where.at(SearchParser.WHAT));
        }
    }

    /** The plan. */
    public Plan plan() {
        return plan;
    }

    /** The condition as given. */
    public String condition() {
        return condition;
    }

    /** The folder searched. */
    public String under() {
        return under;
    }

    /** What it has done so far. */
    public Stats stats() {
        return new Stats(total, examined, results, planNanos, runNanos);
    }

    /** The plan as XML ({@code store:explain}). */
    String planXml() {
        return plan.xml(stats(), condition);
    }

    /** Every result, at once. */
    public List<NodeInfo> results() {
        List<NodeInfo> out = new ArrayList<>();
        iterator(NONE).forEachRemaining(out::add);
        return out;
    }

    /**
     * The matching documents' nodes, found as it is iterated; once only. A failure of the condition
     * on a document is TRANSFORMATION_ERROR with the processor's code, naming the document.
     */
    public Iterator<NodeInfo> iterator(Listener listener) {
        if (used) {
            throw new IllegalStateException("a search runs once");
        }
        used = true;
        Listener l = listener == null ? NONE : listener;
        l.planned(this);
        XPathSelector selector = verifier.load();
        Iterator<String> uris = candidates != null ? candidates.iterator() : new Scan(snapshot, under);
        return new Iterator<>() {
            NodeInfo next;
            boolean ended;

            @Override
            public boolean hasNext() {
                while (next == null && !ended) {
                    long t0 = System.nanoTime();
                    if (!uris.hasNext()) {
                        ended = true;
                        runNanos += System.nanoTime() - t0;
                        l.finished(Search.this);
                        break;
                    }
                    String uri = uris.next();
                    StoredTree tree = snapshot.uncached(uri, config);
                    if (tree != null && verify(selector, tree, uri)) {
                        next = snapshot.document(uri, config).getRootNode();
                        results++;
                    }
                    examined++;
                    runNanos += System.nanoTime() - t0;
                    l.examined(examined, total, uri);
                }
                return next != null;
            }

            @Override
            public NodeInfo next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                NodeInfo n = next;
                next = null;
                return n;
            }
        };
    }

    private boolean verify(XPathSelector selector, StoredTree tree, String uri) {
        try {
            selector.setContextItem(new XdmNode(tree.getRootNode()));
            return selector.effectiveBooleanValue();
        } catch (SaxonApiException e) {
            ArnoException found = ArnoException.find(e);
            if (found != null) {
                throw found;
            }
            String code = arno.xml.ErrorXml.processorCode(e.getErrorCode());
            throw (code == null ? ErrorMessage.SEARCH_FAILED.error(e, Store.SCHEME + uri, e.getMessage())
                    : ErrorMessage.SEARCH_FAILED_CODE.error(e, Store.SCHEME + uri, code, e.getMessage())).at(Where.at(Store.SCHEME + uri))
                    .processorCode(code);
        }
    }

    /** Every document under a folder, read from the paths B+tree a page at a time. */
    private static final class Scan implements Iterator<String> {
        private static final int PAGE = 512;
        private final Snapshot snapshot;
        private final String under;
        private List<String> page;
        private int at;
        private boolean last;

        Scan(Snapshot snapshot, String under) {
            this.snapshot = snapshot;
            this.under = under;
        }

        @Override
        public boolean hasNext() {
            if (page == null || (at == page.size() && !last)) {
                String after = page == null || page.isEmpty() ? null : page.get(page.size() - 1);
                page = snapshot.uris(under, after, PAGE);
                at = 0;
                last = page.size() < PAGE;
            }
            return at < page.size();
        }

        @Override
        public String next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return page.get(at++);
        }
    }
}
