package arno.server;

import static org.assertj.core.api.Assertions.assertThat;

import arno.store.Store;
import arno.store.WriteTransaction;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.commons.io.FileUtils;
import org.junit.jupiter.api.Test;
import org.xmlunit.assertj3.XmlAssert;

/** Pipelines reading the real LMDB store through store: URIs, one snapshot per request. */
class StoreHttpTest {

    @Test
    void aRequestSeesOneVersionOfTheStoreWhileAWriterCommits() throws IOException {
        Path dir = Files.createTempDirectory("arno-store-http");
        try (Store store = Store.open(dir.resolve("store"))) {
            try (WriteTransaction w = store.write()) {
                w.put("/docs/a.xml", "<doc><title>one</title></doc>".getBytes(StandardCharsets.UTF_8));
                w.put("/docs/b.xml", "<doc><title>bee</title></doc>".getBytes(StandardCharsets.UTF_8));
                w.commit();
            }
            StoreWriterFilter.store = store;
            try (TestServer arno = startWith(store)) {
                StoreWriterFilter.nextTitle = "two";
                // The filter commits "two" between the stages; both reads still see "one".
                XmlAssert.assertThat(arno.get("/alpha/stored").body())
                        .and("<stored first='one' second='one' count='2'/>").areSimilar();
                StoreWriterFilter.nextTitle = "three";
                // The next request starts after "two" was committed.
                XmlAssert.assertThat(arno.get("/alpha/stored").body())
                        .and("<stored first='two' second='two' count='2'/>").areSimilar();
            }
        } finally {
            FileUtils.deleteQuietly(dir.toFile());
        }
    }

    @Test
    void aMissingStoredDocumentIsAnErrorNamingIt() throws IOException {
        Path dir = Files.createTempDirectory("arno-store-http");
        try (Store store = Store.open(dir.resolve("store")); TestServer arno = startWith(store)) {
            StoreWriterFilter.store = store;
            StoreWriterFilter.nextTitle = "x";
            // The first stage reads store:/docs/a.xml before anything was stored.
            var r = arno.get("/alpha/stored");
            assertThat(r.statusCode()).isEqualTo(500);
            assertThat(r.body()).contains("store:/docs/a.xml");
        } finally {
            FileUtils.deleteQuietly(dir.toFile());
        }
    }

    private static TestServer startWith(Store store) throws IOException {
        return TestServer.start(TestServer.copy("testroot"), true, 1 << 20, store);
    }
}
