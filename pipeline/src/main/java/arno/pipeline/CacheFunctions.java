package arno.pipeline;

import arno.xml.DocumentStore;
import net.sf.saxon.Configuration;
import net.sf.saxon.expr.StaticProperty;
import net.sf.saxon.expr.XPathContext;
import net.sf.saxon.functions.SystemFunction;
import net.sf.saxon.lib.ExtensionFunctionCall;
import net.sf.saxon.lib.ExtensionFunctionDefinition;
import net.sf.saxon.om.FunctionItem;
import net.sf.saxon.om.Sequence;
import net.sf.saxon.om.StructuredQName;
import net.sf.saxon.trans.XPathException;
import net.sf.saxon.type.SpecificFunctionType;
import net.sf.saxon.value.SequenceType;

/**
 * The one extension function Arno's stylesheets and queries may call (the {@link
 * arno.xml.Access} policy turns off reflexive Java calls; Saxon trusts integrated functions
 * registered on the configuration, and this is the only one registered):
 *
 * <pre>
 * cache:fragment($key as xs:string, $build as function() as item()*) as item()*
 *     xmlns:cache="urn:arno:cache"
 * </pre>
 *
 * Returns the site's cached fragment {@code $key} while what its last build read is unchanged,
 * else calls {@code $build} and keeps what it returns (see {@link ContextCache#fragment}). The
 * key names the fragment within the site: the same key must mean the same content (put in it
 * whatever else the build depends on, such as a parameter). Outside a request, or when the
 * site keeps no fragments, or with the caches off, it just calls {@code $build}.
 *
 * <pre>
 * &lt;xsl:sequence select="cache:fragment('toc:' || $journal, function() { … })"/&gt;
 * </pre>
 */
final class CacheFunctions {
    static final String NS = "urn:arno:cache";

    private CacheFunctions() {}

    static void register(Configuration config) {
        config.registerExtensionFunction(new Fragment());
    }

    private static final class Fragment extends ExtensionFunctionDefinition {
        private static final StructuredQName NAME = new StructuredQName("cache", NS, "fragment");
        private static final SequenceType BUILD = SequenceType.makeSequenceType(
                new SpecificFunctionType(new SequenceType[0], SequenceType.ANY_SEQUENCE), StaticProperty.EXACTLY_ONE);

        @Override
        public StructuredQName getFunctionQName() {
            return NAME;
        }

        @Override
        public SequenceType[] getArgumentTypes() {
            return new SequenceType[] {SequenceType.SINGLE_STRING, BUILD};
        }

        @Override
        public SequenceType getResultType(SequenceType[] supplied) {
            return SequenceType.ANY_SEQUENCE;
        }

        /** Not to be moved out of loops, pre-evaluated or left out: its point is when it runs. */
        @Override
        public boolean hasSideEffects() {
            return true;
        }

        @Override
        public ExtensionFunctionCall makeCallExpression() {
            return new ExtensionFunctionCall() {
                @Override
                public Sequence call(XPathContext context, Sequence[] arguments) throws XPathException {
                    String key = arguments[0].head().getStringValue();
                    FunctionItem build = (FunctionItem) arguments[1].head();
                    ContextCache.Build run = () -> SystemFunction.dynamicCall(build, context).materialize();
                    RequestScope scope = Resources.scope(context);
                    if (scope == null || scope.context == null) return run.run();
                    DocumentStore store = scope.resources.store();
                    return scope.context.fragment(scope, key, scope.code, store, run);
                }
            };
        }
    }
}
