package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.WriteTransaction;
import arno.store.atom.AtomOptions;
import arno.store.atom.AtomStore;
import arno.xml.Access;
import arno.xml.FileRoots;
import arno.xml.Outbound;
import arno.xml.XmlPolicy;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import javax.xml.transform.stream.StreamSource;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.XdmDestination;
import net.sf.saxon.s9api.Xslt30Transformer;
import net.sf.saxon.s9api.XsltExecutable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each transformation reads the store through the view it is given (its {@link StoreReads.Scope},
 * set as its resolvers), not through whatever else runs on its thread: two runs interleaved on one
 * thread, with a commit between their views, each read their own version, by {@code doc()} and
 * {@code collection()}. Real LMDB store, real Saxon.
 */
class StoreReadsTest {
    @TempDir
    Path dir;

    private static final String READS = """
            <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
              <xsl:template name="xsl:initial-template">
                <v><xsl:value-of select="doc('store:/d/a.xml')/doc/@v, count(collection('store:/d/'))"/></v>
              </xsl:template>
            </xsl:stylesheet>
            """;

    @Test
    void twoRunsInterleavedOnOneThreadEachReadTheirOwnView() throws Exception {
        try (Store store = Store.open(dir.resolve("store"), StoreOptions.defaults().mapSize(64L << 20));
                AtomStore atom = AtomStore.open(store, AtomOptions.defaults())) {
            put(store, "/d/a.xml", "<doc v='1'/>");
            Processor processor = new Processor(false);
            Access access = new Access(FileRoots.none(), FileRoots.none(), new Outbound(Outbound.Policy.DEFAULT), XmlPolicy.DEFAULT);
            StoreReads reads = new StoreReads(access, processor.getUnderlyingConfiguration(), atom);
            reads.install();
            XsltExecutable executable = processor.newXsltCompiler().compile(new StreamSource(new StringReader(READS)));
            try (StoreReads.Scope first = reads.open(); StoreReads.Scope second = reads.open()) {
                assertThat(run(executable, first)).isEqualTo("1 1");
                put(store, "/d/a.xml", "<doc v='2'/>");
                put(store, "/d/b.xml", "<doc v='2'/>");
                assertThat(run(executable, second)).isEqualTo("2 2");
                assertThat(run(executable, first)).as("the first view, after the second run").isEqualTo("1 1");
                assertThat(first.version()).isLessThan(second.version());
            }
            // a run given no scope (as at compile time) reads no store: documents
            Xslt30Transformer bare = executable.load30();
            assertThatThrownBy(() -> bare.callTemplate(null, new XdmDestination()))
                    .hasMessageContaining("store: documents are read while a transformation runs");
        }
    }

    private static String run(XsltExecutable executable, StoreReads.Scope scope) throws Exception {
        Xslt30Transformer t = executable.load30();
        scope.give(t);
        XdmDestination out = new XdmDestination();
        t.callTemplate(null, out);
        return out.getXdmNode().getStringValue();
    }

    private static void put(Store store, String path, String xml) {
        try (WriteTransaction w = store.write()) {
            w.put(path, xml.getBytes(StandardCharsets.UTF_8));
            w.commit();
        }
    }
}
