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
