package arno.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.xml.transform.stream.StreamSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;


import arno.xml.ErrorCode;
import arno.xml.HostileCorpus;
import arno.xml.XmlPolicy;
import net.sf.saxon.Configuration;

/**
 * The one hostile corpus through the engine's way in, {@link WriteTransaction#put} (the load task
 * behind {@code ./arno store load} has its own case in the server's {@code LoadHostileInputTest}). Refused and malformed cases store nothing and fetch
 * nothing (a counting HTTP server on 127.0.0.1 is the leak URL, a file outside the store the leak
 * file); accepted ones (a JATS DOCTYPE, internal entities, BOMs and declared encodings) are stored
 * with the text they hold.
 */
class HostileInputTest {

    /** The store as a server opens it: the default XML policy. */
    static final StoreOptions DEFAULT_POLICY = TestStores.SMALL.xmlPolicy(XmlPolicy.DEFAULT);

    @RegisterExtension
    static final HostileCorpus.Leak leak = HostileCorpus.Leak.open();

    @TempDir
    Path dir;

    private List<HostileCorpus.Case> corpus() {
        return leak.cases();
    }

    @Test
    void everyCaseThroughPutIsStoredOrRefusedAsItMust() throws Exception {
        List<HostileCorpus.Case> cases = corpus();
        List<String> accepted = new ArrayList<>();
        try (Store store = Store.open(dir.resolve("store"), DEFAULT_POLICY)) {
            try (WriteTransaction w = store.write()) {
                for (HostileCorpus.Case c : cases) {
                    String uri = "/corpus/" + c.name() + ".xml";
                    switch (c.outcome()) {
                        case ACCEPTED -> {
                            w.put(uri, c.xml());
                            accepted.add(uri);
                        }
                        case REFUSED -> assertThatThrownBy(() -> w.put(uri, c.xml())).as(c.name())
                                .isInstanceOf(StoreException.class)
                                .hasMessageStartingWith("store:" + uri + " was refused: ")
                                .hasMessageEndingWith("; nothing was stored")
                                .hasMessageNotContaining("LEAKED")
                                .satisfies(e -> {
                                    assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.REFUSED_XML);
                                    assertThat(XmlPolicy.refusal(e).kind()).isEqualTo(c.kind());
                                });
                        case MALFORMED -> assertThatThrownBy(() -> w.put(uri, c.xml())).as(c.name())
                                .isInstanceOf(StoreException.class)
                                .hasMessageStartingWith("store:" + uri + " is not well-formed XML: ")
                                .satisfies(e -> {
                                    assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.MALFORMED_XML);
                                    assertThat(XmlPolicy.refusal(e)).isNull();
                                });
                    }
                    assertThat(w.exists(uri)).as(c.name()).isEqualTo(c.outcome() == HostileCorpus.Outcome.ACCEPTED);
                }
                w.commit();
            }
            assertStored(store, cases, accepted);
        }
        assertThat(leak.requests()).as("requests to the leak URL").isZero();
    }

    @Test
    void aSourceThatOnlyNamesAUrlIsRefusedAndNotFetched() throws Exception {
        try (Store store = Store.open(dir.resolve("store"), DEFAULT_POLICY); WriteTransaction w = store.write()) {
            assertThatThrownBy(() -> w.put("/remote.xml", new StreamSource(leak.url())))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("fetches nothing")
                    .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.UNSUPPORTED_URI));
            assertThat(w.exists("/remote.xml")).isFalse();
        }
        assertThat(leak.requests()).as("requests to the leak URL").isZero();
    }

    private static void assertStored(Store store, List<HostileCorpus.Case> cases, List<String> accepted) {
        try (Snapshot s = store.read()) {
            assertThat(s.uris("/")).containsExactlyInAnyOrderElementsOf(accepted);
            Configuration config = new Configuration();
            for (HostileCorpus.Case c : cases) {
                if (c.outcome() == HostileCorpus.Outcome.ACCEPTED) {
                    assertThat(s.document("/corpus/" + c.name() + ".xml", config).getRootNode().getStringValue())
                            .as(c.name()).isEqualTo(c.text());
                }
            }
        }
        assertThat(store.check()).isEmpty();
    }
}
