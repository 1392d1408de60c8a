package arno.pipeline;

import net.sf.saxon.event.Builder;
import net.sf.saxon.event.PipelineConfiguration;
import net.sf.saxon.om.AttributeMap;
import net.sf.saxon.om.NamespaceMap;
import net.sf.saxon.om.NodeName;
import net.sf.saxon.om.TreeModel;
import net.sf.saxon.s9api.Location;
import net.sf.saxon.str.UnicodeString;
import net.sf.saxon.trans.XPathException;
import net.sf.saxon.tree.tiny.Statistics;
import net.sf.saxon.tree.tiny.TinyBuilder;
import net.sf.saxon.type.SchemaType;

/**
 * Saxon-HE cannot interrupt a running transformation, so the time limit is
 * enforced cooperatively wherever a stylesheet produces nodes: stage outputs
 * pass through {@link Stage.Guard}, and every temporary tree (an xsl:variable,
 * a sort key, a stage's input) is built by this model's TinyBuilder, which
 * checks the request's deadline every few hundred nodes. A loop that makes
 * neither output nor nodes (pure arithmetic) is not stopped; Saxon's own
 * recursion limit stops the non-tail-recursive ones.
 */
final class DeadlineTreeModel extends TreeModel {
    private static final int CHECK_EVERY = 256;
    /**
     * The sizes a new tree starts with, adapted by Saxon to the trees built so far.
     * Without its own, a stage's input (a req:request of a few dozen nodes) started
     * with the arrays of a typical source document, 180 KB of garbage per request.
     */
    private static final Statistics SIZES = new Statistics(64, 64, 8, 1024);
    private final RequestScope scope;

    DeadlineTreeModel(RequestScope scope) {
        this.scope = scope;
    }

    @Override
    public Builder makeBuilder(PipelineConfiguration pipe) {
        TinyBuilder builder = new TinyBuilder(pipe) {
            private int events;

            @Override
            public void setStatistics(Statistics ignored) {
                // Saxon gives a transformation's input the sizes of source documents; ours are requests.
                super.setStatistics(SIZES);
            }

            @Override
            public void startElement(NodeName name, SchemaType type, AttributeMap attributes, NamespaceMap namespaces,
                                     Location location, int properties) throws XPathException {
                if (++events % CHECK_EVERY == 0) scope.checkDeadline();
                super.startElement(name, type, attributes, namespaces, location, properties);
            }

            @Override
            public void characters(UnicodeString chars, Location location, int properties) throws XPathException {
                if (++events % CHECK_EVERY == 0) scope.checkDeadline();
                super.characters(chars, location, properties);
            }
        };
        builder.setStatistics(SIZES);
        return builder;
    }

    @Override
    public String getName() {
        return "TinyTree (with request deadline)";
    }
}
