package arno.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import net.sf.saxon.Configuration;

import arno.xml.ErrorCode;

/** Reads inside a write transaction see its own writes; they end with it; deleteTree. */
class TransactionViewTest {

    @TempDir
    Path dir;

    @Test
    void theViewSeesTheTransactionsOwnWritesAndOthersDoNot() throws Exception {
        try (Store store = TestStores.open(dir)) {
            TestStores.putAll(store, "/j/a.atom", "<a>old</a>", "/j/b.atom", "<b/>");
            Configuration config = new Configuration();
            try (WriteTransaction w = store.write(); Snapshot outside = store.read()) {
                Snapshot v = w.view();
                assertThat(v.version()).isEqualTo(2);
                TestStores.put(w, "/j/a.atom", "<a xmlns='urn:new-namespace'><fresh-name>new</fresh-name></a>");
                w.putBinary("/j/a.pdf", "application/pdf", new ByteArrayInputStream(new byte[] {1, 2, 3}));
                TestStores.put(w, "/j/a/f1.atom", "<f/>");
                w.delete("/j/b.atom");
                w.setReferences("/j/a.atom", List.of("/j/a/f1.atom"));
                assertThat(v.exists("/j/b.atom")).isFalse();
                assertThat(v.children("/j/")).containsExactly("a.atom", "a.pdf", "a/");
                assertThat(v.uris("/j/a/")).containsExactly("/j/a/f1.atom");
                // names first used in this transaction are readable in its view
                assertThat(v.document("/j/a.atom", config).getRootNode().getStringValue()).isEqualTo("new");
                net.sf.saxon.om.NodeInfo a = v.document("/j/a.atom", config).getRootNode()
                        .iterateAxis(net.sf.saxon.om.AxisInfo.CHILD).next();
                assertThat(a.getURI()).isEqualTo("urn:new-namespace");
                assertThat(a.iterateAxis(net.sf.saxon.om.AxisInfo.CHILD).next().getLocalPart()).isEqualTo("fresh-name");
                assertThat(v.info("/j/a.atom").version()).isEqualTo(2);
                assertThat(v.info("/j/a.atom").modified()).isEqualTo(w.time());
                assertThat(v.committedAt(2)).isEqualTo(w.time());
                try (InputStream in = v.binary("/j/a.pdf").open()) {
                    assertThat(in.readAllBytes()).containsExactly(1, 2, 3);
                }
                assertThat(v.referrers("/j/a/")).containsExactly("/j/a.atom");
                assertThat(v.changesSince(1)).extracting(Change::uri)
                        .containsExactly("/j/a.atom", "/j/a.pdf", "/j/a/f1.atom", "/j/b.atom");
                // closing the view does not end the transaction
                v.close();
                assertThat(v.exists("/j/a/f1.atom")).isTrue();
                assertThat(w.view()).isSameAs(v);
                // nothing is visible outside before the commit
                assertThat(outside.children("/j/")).containsExactly("a.atom", "b.atom");
                assertThat(outside.document("/j/a.atom", config).getRootNode().getStringValue()).isEqualTo("old");
                w.commit();
                assertThatThrownBy(() -> v.exists("/j/a.atom"))
                        .isInstanceOf(StoreException.class)
                        .hasMessageContaining("has ended with its transaction")
                        .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.CLOSED));
            }
            try (Snapshot s = store.read()) {
                assertThat(s.children("/j/")).containsExactly("a.atom", "a.pdf", "a/");
                assertThat(s.info("/j/a.pdf").modified()).isEqualTo(s.committedAt(2));
                assertThat(s.referrers("/j/a/f1.atom")).containsExactly("/j/a.atom");
            }
            assertThat(store.check()).isEmpty();
        }
    }

    @Test
    void whatTheViewReturnedIsStaleAfterTheNextWrite() throws Exception {
        try (Store store = TestStores.open(dir); WriteTransaction w = store.write()) {
            w.putBinary("/a.bin", "application/octet-stream", new ByteArrayInputStream(new byte[] {1, 2, 3}));
            Configuration config = new Configuration();
            TestStores.put(w, "/x.xml", "<x>1</x>");
            InputStream in = w.view().binary("/a.bin").open();
            assertThat(in.read()).isEqualTo(1);
            assertThat(w.view().document("/x.xml", config).getRootNode().getStringValue()).isEqualTo("1");
            TestStores.put(w, "/x.xml", "<x>2</x>");
            assertThatThrownBy(in::read)
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("has written since; read it again");
            // a new read sees the new document, not a cached tree of the old one
            assertThat(w.view().document("/x.xml", config).getRootNode().getStringValue()).isEqualTo("2");
        }
    }

    @Test
    void deleteTreeDeletesEveryDocumentUnderThePrefixWithItsReferences() {
        try (Store store = TestStores.open(dir)) {
            TestStores.putAll(store, "/j/a.atom", "<a/>", "/j/a/f1.atom", "<f/>", "/j/a/f1.svg", "<svg/>",
                    "/j/a/t/t1.atom", "<t/>", "/j/ab.atom", "<ab/>", "/k.atom", "<k/>");
            try (WriteTransaction w = store.write()) {
                w.setReferences("/j/a/f1.atom", List.of("/j/a.atom"));
                w.setReferences("/k.atom", List.of("/j/a/f1.atom"));
                assertThat(w.deleteTree("/j/a/")).containsExactly("/j/a/f1.atom", "/j/a/f1.svg", "/j/a/t/t1.atom");
                assertThat(w.deleteTree("/nothing/")).isEmpty();
                assertThat(w.view().referrers("/j/a.atom")).as("the deleted source's references are gone").isEmpty();
                assertThat(w.view().referrers("/j/a/")).as("references into what was deleted stay").containsExactly("/k.atom");
                assertThatThrownBy(() -> w.deleteTree("j/"))
                        .isInstanceOf(StoreException.class)
                        .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(ErrorCode.UNSUPPORTED_URI));
                w.commit();
            }
            try (Snapshot s = store.read()) {
                assertThat(s.uris("")).containsExactly("/j/a.atom", "/j/ab.atom", "/k.atom");
                assertThat(s.changesSince(1)).extracting(c -> c.kind() + " " + c.uri() + " " + c.mediaType())
                        .containsExactly("DELETE /j/a/f1.atom application/xml", "DELETE /j/a/f1.svg application/xml",
                                "DELETE /j/a/t/t1.atom application/xml");
            }
            assertThat(store.check()).isEmpty();
        }
    }
}
