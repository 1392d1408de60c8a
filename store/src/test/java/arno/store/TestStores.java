package arno.store;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import arno.xml.XmlPolicy;

/** Opening small stores for tests, and putting XML given as text. */
final class TestStores {

    /**
     * 256 MiB of map (address space only, the file is sparse), and the default XML limits except
     * depth: the edge-case corpus nests 1,001 deep to test the format, one more than the default
     * policy allows. {@link HostileInputTest} uses the default policy itself.
     */
    static final StoreOptions SMALL = StoreOptions.defaults().mapSize(256L << 20)
            .xmlPolicy(new XmlPolicy(new XmlPolicy.Limits(XmlPolicy.Limits.DEFAULT.entityExpansions(),
                    XmlPolicy.Limits.DEFAULT.entityCharacters(), 2_000, XmlPolicy.Limits.DEFAULT.attributeCharacters())));

    private TestStores() {
    }

    /**
     * {@link #SMALL}, and every document gets a structural index (recorded when the store is
     * created) and every range is read through it.
     */
    static final StoreOptions INDEX_EVERYTHING = SMALL.indexMinDocumentBytes(0).indexMinRangeBytes(0);

    /** A clock that moves only when told to: commit times and pruning without sleeping. */
    static final class ManualClock extends java.time.Clock {
        private volatile long millis;

        ManualClock(long millis) {
            this.millis = millis;
        }

        void advance(java.time.Duration d) {
            millis += d.toMillis();
        }

        void set(long m) {
            millis = m;
        }

        @Override
        public long millis() {
            return millis;
        }

        @Override
        public java.time.Instant instant() {
            return java.time.Instant.ofEpochMilli(millis);
        }

        @Override
        public java.time.ZoneId getZone() {
            return java.time.ZoneOffset.UTC;
        }

        @Override
        public java.time.Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    static Store open(Path dir) {
        return Store.open(dir, SMALL);
    }

    /** Closes {@code store} and opens its folder again with {@code options} (per-open settings change; recorded ones stay). */
    static Store reopen(Store store, StoreOptions options) {
        Path dir = store.directory();
        store.close();
        return Store.open(dir, options);
    }

    static DocumentInfo put(WriteTransaction w, String uri, String xml) {
        return w.put(uri, xml.getBytes(StandardCharsets.UTF_8));
    }

    /** Stores the documents in one transaction and commits it. */
    static long putAll(Store store, String... uriXmlPairs) {
        try (WriteTransaction w = store.write()) {
            for (int i = 0; i < uriXmlPairs.length; i += 2) {
                put(w, uriXmlPairs[i], uriXmlPairs[i + 1]);
            }
            return w.commit();
        }
    }

    /**
     * Asserts that two XML texts have the same infoset as XDM sees it: CDATA sections are text
     * (the parser coalesces them), the XML declaration and attribute quoting do not count.
     */
    static void assertSameInfoset(String actual, String expected) {
        javax.xml.parsers.DocumentBuilderFactory f = javax.xml.parsers.DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setCoalescing(true);
        f.setExpandEntityReferences(true);
        org.xmlunit.assertj3.XmlAssert.assertThat(actual).withDocumentBuilderFactory(f).and(expected)
                .withDocumentBuilderFactory(f).areSimilar();
    }

    static String export(Snapshot s, String uri) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        s.export(uri, out);
        return out.toString(StandardCharsets.UTF_8);
    }
}
