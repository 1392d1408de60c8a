package arno.store.atom;

import static arno.store.atom.Fixtures.link;
import static arno.store.atom.Fixtures.links;
import static arno.store.atom.Fixtures.xpath;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import arno.store.Snapshot;
import arno.store.Store;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;

class TreeLoaderTest {

    @TempDir
    Path dir;

    private static void write(Path root, String path, String text) throws IOException {
        Path f = root.resolve(path.substring(1));
        Files.createDirectories(f.getParent());
        Files.writeString(f, text, StandardCharsets.UTF_8);
    }

    private static String entry(String kind, String title, String... more) {
        return new String(Fixtures.entry(kind, title, more), StandardCharsets.UTF_8);
    }

    /** The store's own layout: a journal with an issue directly under it (its model says so), an article, figures. */
    private Path demo() throws IOException {
        Path src = dir.resolve("content");
        String journalModel = new String(Introspection.defaultDocument("journal"), StandardCharsets.UTF_8)
                .replace("</kind>", "<collection name=\"issues\" kinds=\"issue\" naming=\"slug\"/></kind>");
        write(src, "/_model/journal.xml", journalModel);
        write(src, "/journals.atom", entry("journals", "Journals"));
        write(src, "/journals/ja.atom", entry("journal", "Journal A",
                "<link rel=\"self\" href=\"/somewhere/else.atom\"/>"));
        write(src, "/journals/ja/special.atom", entry("issue", "Special issue"));
        write(src, "/journals/ja/special/a0001.atom", entry("article", "Article 1",
                link("figure", "/journals/ja/special/a0001/f1.atom"), link("figure", "/journals/ja/special/a0001/f2.atom"),
                link("cites", "/journals/ja/special/a0002.atom")));
        write(src, "/journals/ja/special/a0001.xml", "<article><front/></article>");
        write(src, "/journals/ja/special/a0001/f1.atom", entry("figure", "Figure 1"));
        write(src, "/journals/ja/special/a0001/f1.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
        write(src, "/journals/ja/special/a0001/f2.atom", entry("figure", "Figure 2"));
        write(src, "/journals/ja/special/a0002.atom", entry("article", "Article 2"));
        Files.write(src.resolve("journals/ja/special/a0002.pdf"), new byte[] {'%', 'P', 'D', 'F'});
        return src;
    }

    @Test
    void loadsAFolderThroughTheWritePath() throws IOException {
        Path src = demo();
        List<long[]> progress = new ArrayList<>();
        try (Store store = Fixtures.store(dir); AtomStore atom = AtomStore.open(store, AtomOptions.defaults())) {
            TreeLoader.Result r = TreeLoader.load(atom, src, "loader", (done, total) -> progress.add(new long[] {done, total}));
            assertThat(r.models()).isEqualTo(1);
            assertThat(r.entries()).isEqualTo(7);
            assertThat(r.variants()).isEqualTo(3);
            assertThat(r.linked()).isEqualTo(1);
            assertThat(progress.get(progress.size() - 1)).containsExactly(12, 12);
            ResourcePath a1 = ResourcePath.of("/journals/ja/special/a0001");
            // the forward links made it in the second pass, with their reciprocals
            assertThat(links(store, a1)).containsExactlyInAnyOrder("figure /journals/ja/special/a0001/f1.atom",
                    "figure /journals/ja/special/a0001/f2.atom", "cites /journals/ja/special/a0002.atom");
            assertThat(links(store, a1.child("f1"))).containsExactly("article /journals/ja/special/a0001.atom");
            assertThat(links(store, ResourcePath.of("/journals/ja/special/a0002")))
                    .containsExactly("cited-by /journals/ja/special/a0001.atom");
            // managed links in the files were ignored
            assertThat(xpath(store, "/journals/ja.atom", "/a:entry/a:link[@rel='self']/@href")).containsExactly("/journals/ja.atom");
            assertThat(xpath(store, "/journals/ja/special/a0001.atom", "/a:entry/a:link[@rel='alternate']/@arno:role"))
                    .containsExactly("jats");
            assertThat(xpath(store, "/journals/ja/special/a0001.atom", "/a:entry/a:author/a:name")).containsExactly("loader");
            try (Snapshot s = store.read()) {
                assertThat(s.info("/journals/ja/special/a0001/f1.svg").mediaType()).isEqualTo("image/svg+xml");
                assertThat(s.binary("/journals/ja/special/a0002.pdf").length()).isEqualTo(4);
                assertThat(s.version()).isEqualTo(r.version());
            }
            // loading again replaces, keeping ids
            String id = xpath(store, a1.entryDocument(), "/a:entry/a:id").get(0);
            TreeLoader.load(atom, src, "loader", null);
            assertThat(xpath(store, a1.entryDocument(), "/a:entry/a:id")).containsExactly(id);
            assertThat(store.check()).isEmpty();
        }
    }

    @Test
    void aBadFileStopsTheLoadNamingIt() throws IOException {
        Path src = demo();
        write(src, "/journals/ja/special/a0002.atom", "<entry xmlns=\"http://www.w3.org/2005/Atom\">\n<title>x</entry>");
        try (Store store = Fixtures.store(dir); AtomStore atom = AtomStore.open(store, AtomOptions.defaults())) {
            try {
                TreeLoader.load(atom, src, "loader", null);
                throw new AssertionError("loaded a malformed entry");
            } catch (ArnoException e) {
                assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED_XML);
                assertThat(e.where().uri()).endsWith("a0002.atom");
                assertThat(e.where().line()).isEqualTo(2);
            }
            write(src, "/journals/ja/special/a0002.atom", entry("article", "Article 2"));
            write(src, "/journals/ja/special/a0002.png", "not declared");
            try {
                TreeLoader.load(atom, src, "loader", null);
                throw new AssertionError("loaded an undeclared variant");
            } catch (ArnoException e) {
                assertThat(e.code()).isEqualTo(ErrorCode.UNPROCESSABLE);
                assertThat(e.getMessage()).contains("a0002.png").contains("no variant with the extension 'png'");
            }
        }
    }
}
