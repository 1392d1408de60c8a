package arno.xml;

import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import net.sf.saxon.Configuration;
import net.sf.saxon.expr.Expression;
import net.sf.saxon.expr.StaticContext;
import net.sf.saxon.expr.StaticProperty;
import net.sf.saxon.expr.XPathContext;
import net.sf.saxon.lib.ExtensionFunctionCall;
import net.sf.saxon.lib.ExtensionFunctionDefinition;
import net.sf.saxon.ma.map.KeyValuePair;
import net.sf.saxon.ma.map.MapItem;
import net.sf.saxon.ma.map.MapType;
import net.sf.saxon.om.Item;
import net.sf.saxon.om.LazySequence;
import net.sf.saxon.om.NamespaceResolver;
import net.sf.saxon.om.NamespaceUri;
import net.sf.saxon.om.NodeInfo;
import net.sf.saxon.om.Sequence;
import net.sf.saxon.om.StructuredQName;
import net.sf.saxon.pattern.NodeKindTest;
import net.sf.saxon.trans.UncheckedXPathException;
import net.sf.saxon.trans.XPathException;
import net.sf.saxon.value.SequenceExtent;
import net.sf.saxon.value.SequenceType;


/**
 * The store's value indexes as XPath functions (Saxon "integrated extension functions", which HE
 * supports), in the namespace {@value #NS}:
 *
 * <pre>
 * store:lookup($index as xs:string, $value as xs:anyAtomicType) as element()*
 * store:lookup($index as xs:string, $key as xs:string, $value as xs:anyAtomicType) as element()*   (a correlated index)
 * store:range($index as xs:string, $low as xs:anyAtomicType?, $high as xs:anyAtomicType?) as element()*
 * store:range($index as xs:string, $key as xs:string, $low as xs:anyAtomicType?, $high as xs:anyAtomicType?) as element()*
 * store:search($under as xs:string, $condition as xs:string [, $prefixes as map(xs:string, xs:string)]) as document-node()*
 * store:explain($under as xs:string, $condition as xs:string [, $prefixes as map(xs:string, xs:string)]) as element(store:plan)
 * </pre>
 *
 * <p>{@code store:search} is {@code collection('store:' || $under)[CONDITION]}, planned on the
 * indexes ({@link DocumentStore.View#search}); its results come lazily, as the caller reads them.
 * The condition's prefixes are those in scope where the call is written (the query's or
 * stylesheet's namespace declarations, and its default element namespace), then those of the
 * optional map, which win.
 *
 * They return the matched elements (their documents are {@code root()}), each once, in index
 * order, from the store view of the running query or request ({@link DocumentStore.View#lookup}):
 * the function does not know where that is, so {@link #register} takes a finder (the pipeline's
 * finds the request's view; {@code ./arno query}'s the snapshot its resolver reads). A failure (no
 * such index, a value not of its type) is an XPath error carrying the store's {@link ArnoException}.
 */
public final class StoreFunctions {

    public static final String NS = "urn:arno:store";
    public static final String PREFIX = "store";

    private StoreFunctions() {
    }

    /** Registers the functions on {@code config}, reading from the view {@code views} finds for a call. */
    public static void register(Configuration config, Function<XPathContext, DocumentStore.View> views) {
        config.registerExtensionFunction(new Definition("lookup", 2, 3, views));
        config.registerExtensionFunction(new Definition("range", 3, 4, views));
        config.registerExtensionFunction(new SearchDefinition("search", views));
        config.registerExtensionFunction(new SearchDefinition("explain", views));
    }

    /** The prefixes a static context binds ("" for its default element namespace, when it has one). */
    static Map<String, String> namespaces(NamespaceResolver r) {
        Map<String, String> out = new HashMap<>();
        if (r == null) {
            return out;
        }
        for (Iterator<String> it = r.iteratePrefixes(); it.hasNext(); ) {
            String p = it.next();
            NamespaceUri uri = r.getURIForPrefix(p, true);
            if (uri != null && !(p.isEmpty() && uri.isEmpty())) {
                out.put(p, uri.toString());
            }
        }
        return out;
    }

    /** store:search and store:explain. */
    private static final class SearchDefinition extends ExtensionFunctionDefinition {
        private final String name;
        private final Function<XPathContext, DocumentStore.View> views;

        SearchDefinition(String name, Function<XPathContext, DocumentStore.View> views) {
            this.name = name;
            this.views = views;
        }

        @Override
        public StructuredQName getFunctionQName() {
            return new StructuredQName(PREFIX, NS, name);
        }

        @Override
        public int getMinimumNumberOfArguments() {
            return 2;
        }

        @Override
        public int getMaximumNumberOfArguments() {
            return 3;
        }

        @Override
        public SequenceType[] getArgumentTypes() {
            return new SequenceType[] {SequenceType.SINGLE_STRING, SequenceType.SINGLE_STRING, MapType.OPTIONAL_MAP_ITEM};
        }

        @Override
        public SequenceType getResultType(SequenceType[] suppliedArgumentTypes) {
            return name.equals("search")
                    ? SequenceType.makeSequenceType(NodeKindTest.DOCUMENT, StaticProperty.ALLOWS_ZERO_OR_MORE)
                    : SequenceType.makeSequenceType(NodeKindTest.ELEMENT, StaticProperty.EXACTLY_ONE);
        }

        @Override
        public boolean hasSideEffects() {
            return true; // reads the store
        }

        @Override
        public ExtensionFunctionCall makeCallExpression() {
            return new SearchCall(this);
        }
    }

    private static final class SearchCall extends ExtensionFunctionCall {
        private final SearchDefinition def;
        private Map<String, String> statics = Map.of();

        SearchCall(SearchDefinition def) {
            this.def = def;
        }

        @Override
        public void supplyStaticContext(StaticContext context, int locationId, Expression[] arguments) {
            statics = namespaces(context.getNamespaceResolver());
        }

        @Override
        public void copyLocalData(ExtensionFunctionCall destination) {
            ((SearchCall) destination).statics = statics;
        }

        @Override
        public Sequence call(XPathContext context, Sequence[] args) throws XPathException {
            String under = args[0].head().getStringValue();
            String condition = args[1].head().getStringValue();
            Map<String, String> ns = new HashMap<>(statics);
            if (args.length > 2 && args[2].head() instanceof MapItem map) {
                for (KeyValuePair kv : map.keyValuePairs()) {
                    ns.put(kv.key.getStringValue(), kv.value.getStringValue());
                }
            }
            String what = PREFIX + ":" + def.name + "('" + under + "', …)";
            try {
                DocumentStore.View view = def.views.apply(context);
                if (view == null) {
                    throw ErrorMessage.NEEDS_STORE.error(what);
                }
                if (def.name.equals("explain")) {
                    return view.explain(under, condition, ns, context.getConfiguration());
                }
                Iterator<NodeInfo> found = view.search(under, condition, ns, context.getConfiguration());
                return new LazySequence(() -> {
                    try {
                        return found.hasNext() ? available(context, found.next()) : null;
                    } catch (ArnoException e) {
                        throw new UncheckedXPathException(translate(e));
                    }
                });
            } catch (ArnoException e) {
                throw translate(e);
            }
        }
    }

    /**
     * Makes a found document available to the running query as {@code doc()} makes one, so that
     * {@code document-uri()} gives its URI and {@code doc()} of that URI gives the same node.
     */
    public static NodeInfo available(XPathContext context, NodeInfo document) {
        String uri = document.getSystemId();
        if (uri != null && context.getController() != null) {
            net.sf.saxon.om.DocumentPool pool = context.getController().getDocumentPool();
            net.sf.saxon.om.DocumentKey key = new net.sf.saxon.om.DocumentKey(uri);
            if (pool.find(key) == null) {
                try {
                    pool.add(document.getTreeInfo(), key);
                } catch (XPathException e) {
                    throw new UncheckedXPathException(e);
                }
            }
        }
        return document;
    }

    private static XPathException translate(ArnoException e) {
        XPathException x = new XPathException(e.getMessage(), e.processorCode() != null ? e.processorCode() : "FODC0002");
        x.initCause(e);
        return x;
    }

    private static final class Definition extends ExtensionFunctionDefinition {
        private final String name;
        private final int min;
        private final int max;
        private final Function<XPathContext, DocumentStore.View> views;

        Definition(String name, int min, int max, Function<XPathContext, DocumentStore.View> views) {
            this.name = name;
            this.min = min;
            this.max = max;
            this.views = views;
        }

        @Override
        public StructuredQName getFunctionQName() {
            return new StructuredQName(PREFIX, NS, name);
        }

        @Override
        public int getMinimumNumberOfArguments() {
            return min;
        }

        @Override
        public int getMaximumNumberOfArguments() {
            return max;
        }

        @Override
        public SequenceType[] getArgumentTypes() {
            SequenceType[] t = new SequenceType[max];
            t[0] = SequenceType.SINGLE_STRING;
            for (int i = 1; i < max; i++) {
                t[i] = name.equals("range") ? SequenceType.OPTIONAL_ATOMIC : SequenceType.SINGLE_ATOMIC;
            }
            return t;
        }

        @Override
        public SequenceType getResultType(SequenceType[] suppliedArgumentTypes) {
            return SequenceType.makeSequenceType(net.sf.saxon.pattern.NodeKindTest.ELEMENT,
                    net.sf.saxon.expr.StaticProperty.ALLOWS_ZERO_OR_MORE);
        }

        @Override
        public boolean hasSideEffects() {
            return true; // reads the store: never evaluated at compile time, nor moved out of its context
        }

        @Override
        public ExtensionFunctionCall makeCallExpression() {
            return new ExtensionFunctionCall() {
                @Override
                public Sequence call(XPathContext context, Sequence[] args) throws XPathException {
                    String[] a = new String[args.length];
                    for (int i = 0; i < args.length; i++) {
                        Item item = args[i].head();
                        a[i] = item == null ? null : item.getStringValue();
                    }
                    boolean correlated = args.length == max;
                    String index = a[0];
                    String key = correlated ? a[1] : null;
                    int v = correlated ? 2 : 1;
                    String low = a[v];
                    String high = name.equals("lookup") ? a[v] : a[v + 1];
                    try {
                        DocumentStore.View view = views.apply(context);
                        if (view == null) {
                            throw ErrorMessage.NEEDS_STORE.error(PREFIX + ":" + name + "('" + index + "', …)");
                        }
                        List<NodeInfo> nodes = view.lookup(index, key, low, high, context.getConfiguration());
                        return SequenceExtent.makeSequenceExtent(nodes);
                    } catch (ArnoException e) {
                        XPathException x = new XPathException(e.getMessage(), "FODC0002");
                        x.initCause(e);
                        throw x;
                    }
                }
            };
        }
    }
}
