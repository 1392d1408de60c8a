package arno.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import arno.store.Snapshot;
import arno.store.Store;
import arno.store.StoreOptions;
import arno.xml.HostileCorpus;
import arno.xml.XmlPolicy;
import net.sf.saxon.Configuration;

/**
 * The one hostile corpus through the load task behind {@code ./arno store load}: refused and
 * malformed files store nothing, fetch nothing and are reported by name; accepted ones are stored
 * with the text they hold; one bad file in a batch does not take the others with it.
 */
class LoadHostileInputTest {

    static final StoreOptions DEFAULT_POLICY = StoreOptions.defaults().mapSize(256L << 20).xmlPolicy(XmlPolicy.DEFAULT);

    @RegisterExtension
    static final HostileCorpus.Leak leak = HostileCorpus.Leak.open();

    @TempDir
    Path dir;

    private List<HostileCorpus.Case> corpus() {
        return leak.cases();
    }

    @Test
    void everyCaseThroughTheLoadTaskIsStoredOrReportedAsItMust() throws Exception {
        List<HostileCorpus.Case> cases = corpus();
        Path content = Files.createDirectories(dir.resolve("content"));
        List<String> accepted = new ArrayList<>();
        for (HostileCorpus.Case c : cases) {
            Files.write(content.resolve(c.name() + ".xml"), c.xml());
            if (c.outcome() == HostileCorpus.Outcome.ACCEPTED) {
                accepted.add("/corpus/" + c.name() + ".xml");
            }
        }
        StringWriter err = new StringWriter();
        try (Store store = Store.open(dir.resolve("store"), DEFAULT_POLICY)) {
            // batches of 3: refused documents inside a batch must not take the others with them
            StoreTasks.Loaded loaded = StoreTasks.load(store, StoreTasks.inputs(List.of(content), "/corpus"), 3,
                    new PrintWriter(err, true), false);
            assertThat(loaded.documents()).isEqualTo(accepted.size());
            assertThat(loaded.failed()).isEqualTo(cases.size() - accepted.size());
            assertStored(store, cases, accepted);
        }
        String report = err.toString();
        for (HostileCorpus.Case c : cases) {
            String file = content.resolve(c.name() + ".xml").toUri().toString();
            switch (c.outcome()) {
                case ACCEPTED -> assertThat(report).doesNotContain(file);
                case REFUSED -> assertThat(report).contains("arno: " + file + " was refused: ");
                case MALFORMED -> assertThat(report).contains("arno: " + file + " is not well-formed XML: ");
            }
        }
        assertThat(report).doesNotContain("LEAKED")
                .contains("; " + (cases.size() - accepted.size()) + " failed");
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
