package arno.store.atom;

import static arno.store.atom.Fixtures.entry;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import arno.store.Snapshot;
import arno.store.Store;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.HostileCorpus;

/**
 * The one hostile corpus through the service's ways in: a posted entry, an XML variant and an
 * introspection document. Refused and malformed cases are refused with the policy's code and
 * store nothing, nothing is fetched or read (a counting server on 127.0.0.1, a secret file), and
 * accepted ones are stored as XML variants.
 */
class HostileEntryTest {

    @TempDir
    Path dir;

    @Test
    void everyCaseIsRefusedOrStoredAsItMust() throws Exception {
        try (HostileCorpus.Leak leak = new HostileCorpus.Leak(); Store store = Fixtures.store(dir);
                AtomStore atom = AtomStore.open(store, AtomOptions.defaults().maxEntryBytes(16 << 20))) {
            ResourcePath j = atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "J"), "ed").path();
            ResourcePath ja = atom.createEntry(j, null, "ja", entry("journal", "JA"), "ed").path();
            ResourcePath i1 = atom.createEntry(atom.createEntry(ja, null, null, entry("volume", "V"), "ed").path(), null,
                    null, entry("issue", "I"), "ed").path();
            ResourcePath a = atom.createEntry(i1, null, "a", entry("article", "A"), "ed").path();
            long before = store.version();
            int n = 0;
            for (HostileCorpus.Case c : leak.cases()) {
                if (c.outcome() == HostileCorpus.Outcome.ACCEPTED) {
                    ResourcePath t = atom.createEntry(a, null, null, entry("table", "T" + n++), "ed").path();
                    atom.putVariant(t, "xml", null, 0, new ByteArrayInputStream(c.xml()), "ed");
                    try (Snapshot s = store.read()) {
                        assertThat(s.document(t.variantDocument("xml"), atom.xml.config).getRootNode().getStringValue())
                                .as(c.name()).contains(c.text());
                    }
                    continue;
                }
                ErrorCode expected = c.outcome() == HostileCorpus.Outcome.REFUSED ? ErrorCode.REFUSED_XML : ErrorCode.MALFORMED_XML;
                long v = store.version();
                assertThat(code(() -> atom.createEntry(i1, null, "x", c.xml(), "ed"))).as(c.name()).isEqualTo(expected);
                assertThat(code(() -> atom.putVariant(a, "xml", null, -1, new ByteArrayInputStream(c.xml()), "ed")))
                        .as(c.name()).isEqualTo(expected);
                assertThat(code(() -> atom.putModel("poem", -1, c.xml(), "ed"))).as(c.name()).isEqualTo(expected);
                assertThat(store.version()).as(c.name()).isEqualTo(v);
            }
            assertThat(store.version()).isGreaterThanOrEqualTo(before);
            assertThat(leak.requests()).isZero();
            try (Snapshot s = store.read()) {
                assertThat(s.exists(i1.child("x").entryDocument())).isFalse();
                assertThat(s.exists(a.variantDocument("xml"))).isFalse();
                assertThat(s.exists("/_model/poem.xml")).isFalse();
                for (String u : s.uris("/")) {
                    if (!s.info(u).binary()) {
                        assertThat(Fixtures.export(store, u)).doesNotContain(Files.readString(leak.secret()).strip());
                    }
                }
            }
        }
    }

    private static ErrorCode code(Runnable r) {
        try {
            r.run();
        } catch (ArnoException e) {
            return e.code();
        }
        return null;
    }
}
