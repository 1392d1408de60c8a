package arno.store.cli;

import java.io.Writer;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import arno.store.Snapshot;
import arno.store.Store;
import arno.xml.Access;
import arno.xml.ArnoException;
import arno.xml.DocumentStore;
import arno.xml.ErrorCode;
import arno.xml.StoreFunctions;
import arno.xml.Where;
import arno.xml.XmlPolicy;
import net.sf.saxon.Configuration;
import net.sf.saxon.lib.ResourceResolver;
import net.sf.saxon.om.TreeInfo;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.Serializer;
import net.sf.saxon.s9api.XQueryCompiler;
import net.sf.saxon.s9api.XQueryEvaluator;
import net.sf.saxon.s9api.XQueryExecutable;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XmlProcessingError;
import net.sf.saxon.trans.XPathException;

/**
 * An XQuery 3.1 query over the store, compiled once ({@link #compile}) and run against one
 * snapshot ({@link #run}): the stored document {@code --context} is the context item, and every
 * stored document is {@code doc('store:/URI')}. Documents it reads from files are parsed by the
 * given {@link XmlPolicy}. Compiling comes first, so a mistake in the query is reported even when
 * there is no store to run it on.
 */
public final class StoreQuery {

    private final Processor processor;
    private final XQueryExecutable executable;
    private final String label;

    private StoreQuery(Processor processor, XQueryExecutable executable, String label) {
        this.processor = processor;
        this.executable = executable;
        this.label = label;
    }

    /**
     * Compiles {@code text}; {@code base} resolves its relative URIs, {@code label} names it in
     * errors (the file, or "query" for an expression). COMPILE_ERROR with the first static error's
     * location and the others as details.
     */
    public static StoreQuery compile(String text, URI base, String label, XmlPolicy policy) {
        Processor processor = new Processor(false);
        policy.install(processor.getUnderlyingConfiguration());
        // store:lookup and store:range read the snapshot whose resolver run() installs
        StoreFunctions.register(processor.getUnderlyingConfiguration(), Snapshot.FROM_RESOLVER);
        XQueryCompiler compiler = processor.newXQueryCompiler();
        compiler.declareNamespace(StoreFunctions.PREFIX, StoreFunctions.NS);
        compiler.setBaseURI(base);
        List<XmlProcessingError> errors = new ArrayList<>();
        compiler.setErrorList(errors);  // collected, not printed: they become the error's details
        try {
            return new StoreQuery(processor, compiler.compile(text), label);
        } catch (SaxonApiException e) {
            ArnoException failure = null;
            for (XmlProcessingError se : errors) {
                if (se.isWarning()) {
                    continue;
                }
                String code = arno.xml.ErrorXml.processorCode(se.getErrorCode());
                Where where = se.getLocation() == null ? Where.at(label)
                        : Where.at(label, se.getLocation().getLineNumber(), se.getLocation().getColumnNumber());
                if (failure == null) {
                    failure = ErrorCode.COMPILE_ERROR.error(e, (code == null ? "" : code + " ") + se.getMessage())
                            .at(where).processorCode(code);
                } else {
                    failure.detail(new ArnoException.Detail(code, se.getMessage(), where, false));
                }
            }
            if (failure == null) {
                failure = ErrorCode.COMPILE_ERROR.error(e, e.getMessage()).at(Where.at(label, e.getLineNumber(), -1));
            }
            throw failure;
        }
    }

    /**
     * Runs the query on one snapshot of {@code store} and writes the result to {@code out}:
     * indented XML, one item per line, unless the query declares its own serialization. NOT_FOUND
     * when {@code context} (a store URI, or null for none) holds no document; TRANSFORMATION_ERROR
     * with the query's error code and location when it fails.
     */
    public void run(Store store, String context, Writer out) {
        try (Snapshot s = store.read()) {
            XQueryEvaluator ev = executable.load();
            // The failure is raised below with its location; Saxon's reporter would print it (with a trace) on System.err.
            ev.setErrorReporter(error -> { });
            Configuration config = processor.getUnderlyingConfiguration();
            ResourceResolver resolver = s.resolver(config);
            ev.setResourceResolver(resolver);
            // collection('store:/journals/ja/'): the XML documents stored under that path, from this snapshot
            config.setCollectionFinder((ctx, uri) -> {
                if (uri == null || !uri.startsWith(DocumentStore.SCHEME)) {
                    throw new XPathException("./arno query reads store: collections only, not " + uri, "FODC0002");
                }
                List<String> members = new ArrayList<>();
                for (String u : s.uris(uri.substring(DocumentStore.SCHEME.length()))) {
                    if (!s.info(u).binary()) members.add(DocumentStore.SCHEME + u);
                }
                return Access.collection(uri, members, resolver, config);
            });
            if (context != null) {
                TreeInfo t = s.document(context, processor.getUnderlyingConfiguration());
                ev.setContextItem(new XdmNode(t.getRootNode()));
            }
            Serializer ser = processor.newSerializer(out);
            ser.setOutputProperty(Serializer.Property.METHOD, "xml");
            ser.setOutputProperty(Serializer.Property.INDENT, "yes");
            ser.setOutputProperty(Serializer.Property.OMIT_XML_DECLARATION, "yes");
            ser.setOutputProperty(Serializer.Property.ITEM_SEPARATOR, "\n");
            Properties declared = executable.getUnderlyingCompiledQuery().getExecutable()
                    .getPrimarySerializationProperties().getProperties();
            for (String key : declared.stringPropertyNames()) {
                ser.setOutputProperty(QName.fromClarkName(key), declared.getProperty(key));
            }
            ev.run(ser);
        } catch (SaxonApiException e) {
            ArnoException found = ArnoException.find(e);
            if (found != null) {
                throw found;
            }
            String code = arno.xml.ErrorXml.processorCode(e.getErrorCode());
            throw ErrorCode.TRANSFORMATION_ERROR.error(e, "the query failed: " + (code == null ? "" : code + " ")
                    + e.getMessage()).at(Where.at(label, e.getLineNumber(), -1)).processorCode(code);
        }
    }
}
