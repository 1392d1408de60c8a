package arno.store.atom;

import static arno.store.atom.Fixtures.bytes;
import static arno.store.atom.Fixtures.entry;
import static arno.store.atom.Fixtures.link;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import arno.store.DocumentInfo;
import arno.store.Snapshot;
import arno.store.Store;

/**
 * Deleting an article with 50 figures and 10 tables (each with a variant), its own variants, and
 * 20 articles elsewhere that cite it and link to its figures: afterwards a full scan of the store
 * finds nothing under it and no href into it, and every entry that did not refer to it is byte
 * for byte what it was, at its old version.
 */
class CascadeDeleteTest {

    @TempDir
    Path dir;

    @Test
    void removesTheSubtreeAndEveryLinkIntoIt() {
        try (Store store = Fixtures.store(dir); AtomStore atom = AtomStore.open(store, AtomOptions.defaults())) {
            ResourcePath journals = atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "J"), "ed").path();
            ResourcePath ja = atom.createEntry(journals, null, "ja", entry("journal", "JA"), "ed").path();
            ResourcePath v1 = atom.createEntry(ja, null, null, entry("volume", "V"), "ed").path();
            ResourcePath i1 = atom.createEntry(v1, null, null, entry("issue", "I1"), "ed").path();
            ResourcePath i2 = atom.createEntry(v1, null, null, entry("issue", "I2"), "ed").path();
            ResourcePath a = atom.createEntry(i1, null, "a", entry("article", "Doomed"), "ed").path();
            // a name that sorts right after the doomed article's, to catch prefix mistakes ("a" vs "a-b", "a0")
            ResourcePath neighbour = atom.createEntry(i1, null, "a-b", entry("article", "Neighbour"), "ed").path();
            ResourcePath neighbour2 = atom.createEntry(i1, null, "a0", entry("article", "Neighbour 2"), "ed").path();
            atom.putVariant(a, "xml", null, 0, bytes("<article><body/></article>"), "ed");
            atom.putVariant(a, "pdf", null, 0, new ByteArrayInputStream(new byte[5000]), "ed");
            List<String> figureLinks = new ArrayList<>();
            for (int f = 1; f <= 50; f++) {
                ResourcePath fig = atom.createEntry(a, null, "f" + f, entry("figure", "Figure " + f), "ed").path();
                atom.putVariant(fig, "svg", null, 0, bytes("<svg xmlns='http://www.w3.org/2000/svg'><rect width='" + f + "'/></svg>"), "ed");
                figureLinks.add(link("figure", fig.entryDocument()));
            }
            for (int t = 1; t <= 10; t++) {
                ResourcePath table = atom.createEntry(a, null, null, entry("table", "Table " + t), "ed").path();
                atom.putVariant(table, "xml", null, 0, bytes("<table><tr><td>" + t + "</td></tr></table>"), "ed");
            }
            atom.replaceEntry(a, -1, entry("article", "Doomed", String.join("", figureLinks)), "ed");
            for (int r = 1; r <= 20; r++) {
                atom.createEntry(i2, null, "r" + r, entry("article", "Referrer " + r, link("cites", a.entryDocument()),
                        link("figure", a.child("f" + r).entryDocument()), link("cites", neighbour.entryDocument())), "ed");
            }
            // unrelated: a neighbour's figure linked from another issue's article
            ResourcePath nf = atom.createEntry(neighbour, null, "f1", entry("figure", "NF"), "ed").path();
            atom.createEntry(i2, null, "u1", entry("article", "Unrelated", link("figure", nf.entryDocument())), "ed");

            Map<String, String> before = new LinkedHashMap<>();
            Map<String, Long> versionsBefore = new LinkedHashMap<>();
            String doomedEntry = a.entryDocument();
            String doomedVariants = a.path() + ".";
            String doomedBelow = a.childrenFolder();
            List<String> doomed = new ArrayList<>();
            try (Snapshot s = store.read()) {
                for (String u : s.uris("/")) {
                    if (u.startsWith(doomedVariants) || u.startsWith(doomedBelow)) {
                        doomed.add(u);
                        continue;
                    }
                    DocumentInfo info = s.info(u);
                    versionsBefore.put(u, info.version());
                    if (!info.binary()) before.put(u, Fixtures.export(store, u));
                }
            }
            assertThat(doomed).hasSize(3 + 50 * 2 + 10 * 2);

            AtomStore.Deleted d = atom.delete(a, -1, "ed");

            assertThat(d.documents()).containsExactlyInAnyOrderElementsOf(doomed);
            assertThat(d.linksRemoved()).isEqualTo(40);
            try (Snapshot s = store.read()) {
                for (String u : s.uris("")) {
                    assertThat(u).doesNotStartWith(doomedVariants).doesNotStartWith(doomedBelow);
                    if (s.info(u).binary()) continue;
                    String xml = Fixtures.export(store, u);
                    assertThat(xml).as(u).doesNotContain("\"" + doomedVariants).doesNotContain("\"" + doomedBelow);
                    boolean referred = u.startsWith(i2.childrenFolder() + "r");
                    if (referred) {
                        assertThat(s.info(u).version()).isEqualTo(d.version());
                        assertThat(Fixtures.links(store, ResourcePath.document(u).resource()))
                                .containsExactly("cites " + neighbour.entryDocument());
                    } else {
                        assertThat(s.info(u).version()).as(u).isEqualTo(versionsBefore.get(u));
                        assertThat(xml).as(u).isEqualTo(before.get(u));
                    }
                }
                assertThat(s.referrers(doomedVariants)).isEmpty();
                assertThat(s.referrers(doomedBelow)).isEmpty();
                assertThat(s.exists(neighbour2.entryDocument())).isTrue();
                // the 20 citing articles, and the neighbour's own figure (its up link)
                assertThat(s.referrers(neighbour.entryDocument())).hasSize(21).contains(nf.entryDocument());
            }
            assertThat(versionsBefore.keySet()).doesNotContain(doomedEntry);
            assertThat(store.check()).isEmpty();
        }
    }

    /**
     * The count a delete is confirmed against (the HTTP API's ?recursive=N) is counted in the
     * writer's transaction, is exactly what the delete removes (a neighbour whose name starts the
     * same is not counted), and a confirmation that refuses leaves everything stored.
     */
    @Test
    void theConfirmationSeesWhatTheDeleteRemovesAndItsRefusalKeepsEverything() {
        try (Store store = Fixtures.store(dir); AtomStore atom = AtomStore.open(store, AtomOptions.defaults())) {
            ResourcePath journals = atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "J"), "ed").path();
            ResourcePath ja = atom.createEntry(journals, null, "ja", entry("journal", "JA"), "ed").path();
            atom.createEntry(journals, null, "ja-b", entry("journal", "Neighbour"), "ed");
            ResourcePath v1 = atom.createEntry(ja, null, null, entry("volume", "V"), "ed").path();
            atom.putVariant(ja, "png", null, 0, new ByteArrayInputStream(new byte[] {1, 2, 3}), "ed");
            atom.createEntry(v1, null, null, entry("issue", "I1"), "ed");
            long[] seen = new long[1];
            long before = store.version();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> atom.delete(ja, -1, "ed", count -> {
                seen[0] = count;
                throw arno.xml.ErrorCode.CONFLICT.error("the delete", "not confirmed");
            })).hasMessageContaining("not confirmed");
            assertThat(seen[0]).isEqualTo(4); // ja.atom, ja.png, v1.atom, v1/i1.atom
            assertThat(store.version()).isEqualTo(before);
            try (Snapshot s = store.read()) {
                assertThat(AtomStore.documentsRemoved(s, ja)).isEqualTo(4);
                assertThat(s.exists(ja.entryDocument())).isTrue();
            }
            AtomStore.Deleted d = atom.delete(ja, -1, "ed", count -> seen[0] = -count);
            assertThat(d.documents()).hasSize(4);
            assertThat(seen[0]).isEqualTo(-4);
            try (Snapshot s = store.read()) {
                assertThat(s.exists(journals.child("ja-b").entryDocument())).isTrue();
            }
        }
    }
}
