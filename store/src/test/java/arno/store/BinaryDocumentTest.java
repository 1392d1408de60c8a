package arno.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import javax.xml.transform.stream.StreamSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import net.sf.saxon.Configuration;

import arno.xml.ErrorCode;

/** Binary documents: stored in 1 MiB chunks, read back whole and by range, and media types of XML. */
class BinaryDocumentTest {

    @TempDir
    Path dir;

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] readAll(InputStream in) throws IOException {
        try (in) {
            return in.readAllBytes();
        }
    }

    /** Sizes around the chunk boundary, each read back whole and by ranges that cross boundaries. */
    @Test
    void bytesComeBackWholeAndByRangeAcrossChunkBoundaries() throws IOException {
        int c = Format.CHUNK_SIZE;
        int[] sizes = {0, 1, c - 1, c, c + 1, 2 * c + c / 2};
        try (Store store = TestStores.open(dir)) {
            try (WriteTransaction w = store.write()) {
                for (int i = 0; i < sizes.length; i++) {
                    DocumentInfo info = w.putBinary("/b/" + i + ".bin", "application/octet-stream",
                            new ByteArrayInputStream(random(sizes[i], i)));
                    assertThat(info.storedBytes()).isEqualTo(sizes[i]);
                    assertThat(info.binary()).isTrue();
                }
                w.commit();
            }
            Random r = new Random(42);
            try (Snapshot s = store.read()) {
                for (int i = 0; i < sizes.length; i++) {
                    byte[] expected = random(sizes[i], i);
                    Binary b = s.binary("/b/" + i + ".bin");
                    assertThat(b.length()).isEqualTo(sizes[i]);
                    assertThat(b.mediaType()).isEqualTo("application/octet-stream");
                    assertThat(b.version()).isEqualTo(1);
                    assertThat(readAll(b.open())).isEqualTo(expected);
                    for (int k = 0; k < 20 && sizes[i] > 0; k++) {
                        long from = k == 0 && sizes[i] > c ? c - 3 : r.nextInt(sizes[i]);
                        long len = r.nextInt((int) (sizes[i] - from) + 1);
                        assertThat(readAll(b.open(from, len)))
                                .isEqualTo(Arrays.copyOfRange(expected, (int) from, (int) (from + len)));
                    }
                    assertThat(readAll(b.open(sizes[i], 0))).isEmpty();
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    s.export("/b/" + i + ".bin", out);
                    assertThat(out.toByteArray()).isEqualTo(expected);
                }
                // one byte at a time through read(), across the first chunk boundary
                try (InputStream in = s.binary("/b/4.bin").open(c - 1, 2)) {
                    byte[] e = random(c + 1, 4);
                    assertThat(in.read()).isEqualTo(e[c - 1] & 0xFF);
                    assertThat(in.read()).isEqualTo(e[c] & 0xFF);
                    assertThat(in.read()).isEqualTo(-1);
                }
            }
            assertThat(store.check()).isEmpty();
        }
    }

    @Test
    void infoSaysBinaryAndMediaTypeAndXmlIsApplicationXmlUnlessGiven() {
        try (Store store = TestStores.open(dir)) {
            try (WriteTransaction w = store.write()) {
                w.putBinary("/a.pdf", "application/pdf", new ByteArrayInputStream("%PDF-1.7".getBytes(StandardCharsets.US_ASCII)));
                TestStores.put(w, "/a.xml", "<a/>");
                w.put("/f.svg", new StreamSource(new ByteArrayInputStream("<svg xmlns='http://www.w3.org/2000/svg'/>"
                        .getBytes(StandardCharsets.UTF_8)), "store:/f.svg"), "image/svg+xml");
                w.commit();
            }
            try (Snapshot s = store.read()) {
                DocumentInfo pdf = s.info("/a.pdf");
                assertThat(pdf.binary()).isTrue();
                assertThat(pdf.mediaType()).isEqualTo("application/pdf");
                assertThat(pdf.storedBytes()).isEqualTo(8);
                assertThat(pdf.nodes()).isZero();
                assertThat(pdf.xmlBytes()).isEqualTo(-1);
                assertThat(s.info("/a.xml").mediaType()).isEqualTo("application/xml");
                assertThat(s.info("/a.xml").binary()).isFalse();
                assertThat(s.info("/f.svg").mediaType()).isEqualTo("image/svg+xml");
                assertThat(s.binary("/a.xml")).as("XML is not a binary").isNull();
                assertThat(s.binary("/none.pdf")).isNull();
                assertThat(s.document("/f.svg", new Configuration()).getRootNode().iterateAxis(
                        net.sf.saxon.om.AxisInfo.CHILD).next().getLocalPart()).isEqualTo("svg");
                assertThatThrownBy(() -> s.export("/a.pdf", new java.io.StringWriter()))
                        .isInstanceOf(StoreException.class)
                        .hasMessageContaining("store:/a.pdf is binary (application/pdf, 8 bytes), not XML, so it cannot be"
                                + " written as text; export it to a file (./arno store export /a.pdf --out FILE)");
                assertThatThrownBy(() -> s.document("/a.pdf", new Configuration()))
                        .isInstanceOf(StoreException.class)
                        .hasMessageContaining("store:/a.pdf is binary (application/pdf), not XML")
                        .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.BAD_REQUEST));
            }
        }
    }

    @Test
    void replacingXmlByBinaryAndBackLeavesNoOrphans() throws IOException {
        try (Store store = TestStores.open(dir)) {
            TestStores.putAll(store, "/x", "<x>tree</x>");
            try (WriteTransaction w = store.write()) {
                w.putBinary("/x", "image/png", new ByteArrayInputStream(random(Format.CHUNK_SIZE + 10, 7)));
                w.commit();
            }
            assertThat(store.check()).isEmpty();
            try (Snapshot s = store.read()) {
                assertThat(readAll(s.binary("/x").open())).isEqualTo(random(Format.CHUNK_SIZE + 10, 7));
                assertThat(s.binary("/x").version()).isEqualTo(2);
            }
            TestStores.putAll(store, "/x", "<x>again</x>");
            try (Snapshot s = store.read()) {
                assertThat(s.binary("/x")).isNull();
                assertThat(s.document("/x", new Configuration()).getRootNode().getStringValue()).isEqualTo("again");
            }
            assertThat(store.check()).isEmpty();
        }
    }

    @Test
    void aFailingStreamStoresNothingAndLeavesTheTransactionUsable() {
        InputStream failing = new InputStream() {
            private int n;

            @Override
            public int read() throws IOException {
                if (n++ > Format.CHUNK_SIZE + 5) {
                    throw new IOException("connection reset");
                }
                return 1;
            }
        };
        try (Store store = TestStores.open(dir)) {
            try (WriteTransaction w = store.write()) {
                assertThatThrownBy(() -> w.putBinary("/f.bin", "application/octet-stream", failing))
                        .isInstanceOf(StoreException.class)
                        .hasMessageContaining("cannot read the bytes to store as store:/f.bin: connection reset")
                        .hasMessageContaining("nothing was stored")
                        .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.IO));
                assertThat(w.exists("/f.bin")).isFalse();
                TestStores.put(w, "/ok.xml", "<ok/>");
                w.commit();
            }
            try (Snapshot s = store.read()) {
                assertThat(s.uris("")).containsExactly("/ok.xml");
            }
            assertThat(store.check()).isEmpty();
        }
    }

    @Test
    void rangesOutsideAndStreamsOfClosedSnapshotsAreRefused() throws IOException {
        try (Store store = TestStores.open(dir)) {
            try (WriteTransaction w = store.write()) {
                w.putBinary("/a.bin", "application/octet-stream", new ByteArrayInputStream(random(100, 1)));
                w.commit();
            }
            InputStream in;
            try (Snapshot s = store.read()) {
                Binary b = s.binary("/a.bin");
                assertThatThrownBy(() -> b.open(90, 11))
                        .isInstanceOf(StoreException.class)
                        .hasMessage("bytes 90 to 100 are not inside store:/a.bin, which has 100 bytes")
                        .satisfies(e -> assertThat(((StoreException) e).code())
                                .isEqualTo(ErrorCode.RANGE_NOT_SATISFIABLE));
                assertThatThrownBy(() -> b.open(-1, 1)).isInstanceOf(StoreException.class);
                in = b.open(0, 100);
                assertThat(in.read()).isEqualTo(random(100, 1)[0] & 0xFF);
            }
            InputStream later = in;
            assertThatThrownBy(() -> later.read(new byte[10]))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("is closed")
                    .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.CLOSED));
        }
    }

    @Test
    void badMediaTypesAreRefused() {
        try (Store store = TestStores.open(dir); WriteTransaction w = store.write()) {
            for (String bad : new String[] {"", "pdf", "application/", "/pdf", "a/b/c", "text/plain\n", "text/é"}) {
                assertThatThrownBy(() -> w.putBinary("/a.bin", bad, new ByteArrayInputStream(new byte[1])))
                        .as(bad)
                        .isInstanceOf(StoreException.class)
                        .hasMessageContaining("media type '" + bad + "' for store:/a.bin")
                        .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.BAD_PARAMETER));
            }
            w.putBinary("/a.bin", "application/atom+xml;type=entry", new ByteArrayInputStream(new byte[1]));
            assertThat(w.view().info("/a.bin").mediaType()).isEqualTo("application/atom+xml;type=entry");
        }
    }
}
