package arno.fulltext;

import arno.xml.ArnoException;
import arno.xml.DocumentStore;
import arno.xml.ErrorCode;
import arno.xml.StoreFunctions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.xml.stream.XMLStreamException;
import net.sf.saxon.expr.XPathContext;
import net.sf.saxon.lib.ExtensionFunctionCall;
import net.sf.saxon.lib.ExtensionFunctionDefinition;
import net.sf.saxon.ma.map.KeyValuePair;
import net.sf.saxon.ma.map.MapItem;
import net.sf.saxon.ma.map.MapType;
import net.sf.saxon.om.Item;
import net.sf.saxon.om.Sequence;
import net.sf.saxon.om.SequenceIterator;
import net.sf.saxon.om.StructuredQName;
import net.sf.saxon.pattern.NodeKindTest;
import net.sf.saxon.s9api.BuildingStreamWriter;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmNodeKind;
import net.sf.saxon.trans.XPathException;
import net.sf.saxon.value.SequenceType;

/**
 * {@code store:ft-search($query as xs:string, $options as map(*)?) as element(store:results)}
 * in the namespace {@value StoreFunctions#NS}: a page of full-text hits ({@link ResultsXml}).
 * Options are {@link SearchRequest#of(String, Map)}'s, each a value or a sequence (several
 * filter values): {@code map{'size': 20, 'journal': 'Journal A', 'year-from': 2020}}. A refusal
 * (bad-query, search-unavailable, search-busy) is an XPath error carrying the {@link ArnoException}.
 *
 * <p>Which version it reads: the index follows the store from behind (within its poll, about
 * 100 ms), so the hits are those of the store version {@code @version} says it had applied, which
 * may be older than the request's view (a hit's entry may then be gone from the view, or a new one
 * missing) or, rarely, newer. The call tells the request's view ({@link
 * DocumentStore.View#followedIndexRead}), so a page cache keeps the page only while the store stays
 * at that version, and not at all when it is not the view's.
 */
public final class FtSearchFunction extends ExtensionFunctionDefinition {

    private final Supplier<? extends Searchable> index;
    private final Function<XPathContext, DocumentStore.View> views;

    private FtSearchFunction(Supplier<? extends Searchable> index, Function<XPathContext, DocumentStore.View> views) {
        this.index = index;
        this.views = views;
    }

    /** Registers the function on {@code config}; {@code index} gives the index (null: none, the call fails). */
    public static void register(net.sf.saxon.Configuration config, Supplier<? extends Searchable> index) {
        register(config, index, context -> null);
    }

    /**
     * As {@link #register(net.sf.saxon.Configuration, Supplier)}; {@code views} finds the store view
     * of the request or query a call runs in (null: none), which is told what the search read.
     */
    public static void register(net.sf.saxon.Configuration config, Supplier<? extends Searchable> index,
                                Function<XPathContext, DocumentStore.View> views) {
        config.registerExtensionFunction(new FtSearchFunction(index, views));
    }

    @Override
    public StructuredQName getFunctionQName() {
        return new StructuredQName(StoreFunctions.PREFIX, StoreFunctions.NS, "ft-search");
    }

    @Override
    public int getMinimumNumberOfArguments() {
        return 1;
    }

    @Override
    public int getMaximumNumberOfArguments() {
        return 2;
    }

    @Override
    public SequenceType[] getArgumentTypes() {
        return new SequenceType[] {SequenceType.SINGLE_STRING, MapType.OPTIONAL_MAP_ITEM};
    }

    @Override
    public SequenceType getResultType(SequenceType[] suppliedArgumentTypes) {
        return SequenceType.makeSequenceType(NodeKindTest.ELEMENT, net.sf.saxon.expr.StaticProperty.EXACTLY_ONE);
    }

    @Override
    public boolean hasSideEffects() {
        return true; // reads the index, which moves with the store
    }

    @Override
    public ExtensionFunctionCall makeCallExpression() {
        return new ExtensionFunctionCall() {
            @Override
            public Sequence call(XPathContext context, Sequence[] args) throws XPathException {
                String query = args[0].head().getStringValue();
                Map<String, List<String>> options = new LinkedHashMap<>();
                if (args.length > 1 && args[1].head() instanceof MapItem map) {
                    for (KeyValuePair kv : map.keyValuePairs()) {
                        List<String> values = new ArrayList<>();
                        SequenceIterator it = kv.value.iterate();
                        for (Item i; (i = it.next()) != null; ) values.add(i.getStringValue());
                        options.put(kv.key.getStringValue(), values);
                    }
                }
                DocumentStore.View view = null;
                try {
                    Searchable ix = index.get();
                    if (ix == null) throw arno.xml.ErrorMessage.SEARCH_NOT_CONFIGURED.error();
                    // The view first: a request that has read nothing yet opens it now, before the search.
                    view = views.apply(context);
                    Results r = ix.search(SearchRequest.of(query, options));
                    if (view != null) view.followedIndexRead("full-text index", r.version());
                    Processor p = new Processor(context.getConfiguration());
                    BuildingStreamWriter w = p.newDocumentBuilder().newBuildingStreamWriter();
                    w.writeStartDocument();
                    ResultsXml.write(r, w);
                    w.writeEndDocument();
                    XdmNode doc = w.getDocumentNode();
                    for (XdmNode n : doc.children()) if (n.getNodeKind() == XdmNodeKind.ELEMENT) return n.getUnderlyingNode();
                    throw new IllegalStateException("no results element");
                } catch (ArnoException e) {
                    // A template that catches the refusal and shows a page must not have that page kept.
                    if (view != null) view.followedIndexRead("full-text index", -1);
                    // The error's code is the catalogue's, in its namespace: a template catches err:bad-query apart.
                    XPathException x = new XPathException(e.getMessage());
                    x.setErrorCodeQName(new StructuredQName("err", arno.xml.ErrorXml.NS, e.code().code()));
                    // The sentence alone, for a page to show ($err:value; the description may add the cause's).
                    x.setErrorObject(new net.sf.saxon.value.StringValue(e.getMessage()));
                    x.initCause(e);
                    throw x;
                } catch (XMLStreamException | SaxonApiException e) {
                    throw new XPathException(ErrorCode.INTERNAL.format(e.getMessage()));
                }
            }
        };
    }
}
