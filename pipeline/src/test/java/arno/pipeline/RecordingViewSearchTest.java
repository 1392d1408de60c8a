package arno.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import arno.cache.Dependencies;
import arno.store.Snapshot;
import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.WriteTransaction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.sf.saxon.om.NodeInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A page that ran a structured search depends on the whole store, as one that ran a lookup: the
 * search read indexes and documents no single dependency names, so the page is valid only until the
 * next commit ({@link Reads#STORE_ANY}). Real LMDB store, real Saxon.
 */
class RecordingViewSearchTest {

    @TempDir
    Path dir;

    @Test
    void aSearchOrItsPlanRecordsAStoreWideDependency() {
        try (Store store = Store.open(dir, StoreOptions.defaults().mapSize(64L << 20))) {
            try (WriteTransaction w = store.write()) {
                w.put("/d/a.xml", "<doc n='1'/>".getBytes(StandardCharsets.UTF_8));
                w.put("/d/b.xml", "<doc n='2'/>".getBytes(StandardCharsets.UTF_8));
                w.commit();
            }
            net.sf.saxon.Configuration config = new net.sf.saxon.Configuration();
            for (boolean explain : new boolean[] {false, true}) {
                Reads reads = new Reads();
                try (Snapshot s = store.read()) {
                    RecordingView view = new RecordingView(s, reads);
                    if (explain) {
                        assertThat(view.explain("/d/", "doc/@n = 2", Map.of(), config).getLocalPart())
                                .isEqualTo("plan");
                    } else {
                        List<NodeInfo> found = new ArrayList<>();
                        view.search("/d/", "doc/@n = 2", Map.of(), config).forEachRemaining(found::add);
                        assertThat(found).extracting(NodeInfo::getSystemId).containsExactly("store:/d/b.xml");
                    }
                    assertThat(reads.dependencies()).extracting(Dependencies.Dependency::kind).contains(Reads.STORE_ANY);
                }
            }
        }
    }
}
