package arno.perf.pages;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ceiling harness on two demo articles: its pages are found equal to those a real Arno serves
 * from the store (started as PerfServer starts it), it then measures; and a site stylesheet that
 * differs on purpose is reported as a mismatch naming the page.
 */
class CeilingTest {
    @TempDir
    static Path tmp;
    /** The checkout: Maven runs this module's tests in perf/. */
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static Path content;

    @BeforeAll
    static void content() throws Exception {
        content = tmp.resolve("data/content");
        arno.demo.Generator.generate(content, 2, 1);
    }

    private static List<CeilingPages.Page> pages(CeilingPages site) throws Exception {
        List<CeilingPages.Page> pages = new ArrayList<>();
        for (String p : PerfServer.fullTextPaths(content)) pages.add(site.page(p));
        return pages;
    }

    @Test
    void itsPagesAreArnosThenItMeasures() throws Exception {
        CeilingPages site = Ceiling.pages(ROOT, content, null);
        List<CeilingPages.Page> pages = pages(site);
        assertThat(pages).extracting(CeilingPages.Page::path)
                .containsExactly("/journal-a/v1/i1/a0001/full", "/journal-b/v1/i1/a0001/full");
        assertThat(Ceiling.checkInProcess(site, pages, ROOT, content, false)).isNull();

        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Ceiling.Result r = Ceiling.measure(site, pages, 2, 0, 1, 1, new PrintStream(log, true, StandardCharsets.UTF_8));
        assertThat(r.median()).isPositive();
        assertThat(log.toString(StandardCharsets.UTF_8)).startsWith("round 1: ").contains("pages/s").contains("us/page");
    }

    @Test
    void inTurnsItBuildsOnlyDuringATurn() throws Exception {
        CeilingPages site = Ceiling.pages(ROOT, content, null);
        List<CeilingPages.Page> pages = pages(site);
        try (Ceiling.Builders b = new Ceiling.Builders(site, pages, 2)) {
            Thread.sleep(300);
            assertThat(b.built()).as("before the first turn").isZero();
            b.open(true);
            long t0 = System.nanoTime();
            while (b.built() < 4 && System.nanoTime() - t0 < 30_000_000_000L) Thread.sleep(10);
            assertThat(b.built()).as("while open").isGreaterThanOrEqualTo(4);
            b.open(false);
            Thread.sleep(1000); // a page under way when closed still ends
            long closed = b.built();
            Thread.sleep(500);
            assertThat(b.built()).as("after the turn").isEqualTo(closed);
        }

        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Ceiling.Result r = Ceiling.turns(site, pages, 2, new java.io.BufferedReader(new java.io.StringReader("warmup 1\n1\n\n1\n")),
                new PrintStream(log, true, StandardCharsets.UTF_8));
        assertThat(r.pagesPerSecond()).hasSize(2);
        assertThat(java.util.Arrays.stream(r.pagesPerSecond()).min().orElseThrow()).isPositive();
        assertThat(log.toString(StandardCharsets.UTF_8).lines())
                .filteredOn(l -> l.startsWith("turn ")).extracting(l -> l.substring(0, 7)).containsExactly("turn 1:", "turn 2:");
    }

    @Test
    void aStylesheetThatDiffersIsAMismatchNamingThePage() throws Exception {
        Path changed = tmp.resolve("site.xsl");
        String xsl = Files.readString(ROOT.resolve("sites/journal-a/site.xsl"));
        assertThat(xsl).contains("'Water at the land–sea boundary'");
        Files.writeString(changed, xsl.replace("'Water at the land–sea boundary'", "'Water, elsewhere'"));
        CeilingPages site = Ceiling.pages(ROOT, content, Map.of("journal-a", changed));
        Ceiling.Mismatch m = Ceiling.checkInProcess(site, pages(site), ROOT, content, false);
        assertThat(m).isNotNull();
        assertThat(m.path()).isEqualTo("/journal-a/v1/i1/a0001/full");
        assertThat(m.reason()).contains("Water");
    }
}
