package arno.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import arno.xml.ErrorCode;
import java.nio.file.Files;
import java.nio.file.Path;
import net.sf.saxon.s9api.XdmNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A link inside the content folder cannot lead out of it: not when first read, and not when a
 * file already in the source cache is replaced by a link (the cache's hits skip the real-path
 * check, so this is what keeps them honest).
 */
class ContentLinksTest {
    static final Path BASIC = Path.of("src/test/resources/roots/basic");
    @TempDir Path tmp;
    Path content;
    Path secret;
    Sites sites;

    @BeforeEach
    void setUp() throws Exception {
        content = Files.createDirectories(tmp.resolve("content/docs"));
        Files.writeString(content.resolve("a.xml"), "<doc><title>inside</title></doc>");
        secret = Files.writeString(tmp.resolve("secret.xml"), "<doc><title>SECRET</title></doc>");
        sites = Sites.compile(PipelineCasesTest.config(BASIC, true).withContent(tmp.resolve("content"))
                .withSourceCache(1 << 20), null);
    }

    private Exchange read(String name) {
        return sites.exchange(HttpRequest.builder("GET", "/alpha/docs/" + name).build());
    }

    private static boolean canLink(Path link, Path target) {
        try {
            Files.createSymbolicLink(link, target);
            return true;
        } catch (UnsupportedOperationException | java.io.IOException e) {
            return false;
        }
    }

    @Test
    void aLinkOutOfTheFolderIsRefused() {
        if (!canLink(content.resolve("link.xml"), secret)) return; // no links on this file system: nothing to escape by
        Exchange x = read("link");
        XdmNode response = x.respond();
        assertThat(response.toString()).doesNotContain("SECRET");
        assertThat(x.error()).isNotNull();
        assertThat(x.error().describe()).contains("outside the allowed folders");
    }

    @Test
    void aCachedFileSwappedForALinkIsRefused() throws Exception {
        Exchange first = read("a");
        assertThat(first.respond().toString()).contains("inside");
        assertThat(first.error()).isNull();
        Files.delete(content.resolve("a.xml"));
        if (!canLink(content.resolve("a.xml"), secret)) return;
        Exchange second = read("a");
        assertThat(second.respond().toString()).doesNotContain("SECRET").doesNotContain("inside");
        assertThat(second.error()).isNotNull();
        assertThat(second.error().code()).isEqualTo(ErrorCode.STAGE_ERROR);
        assertThat(second.error().describe()).contains("outside the allowed folders");
    }

    /** A stage's stylesheet must lie in the sites folder: site.xml cannot reach code elsewhere by "..". */
    @Test
    void aStageOutsideTheSitesFolderIsRefused() throws Exception {
        Path root = tmp.resolve("root");
        Path site = Files.createDirectories(root.resolve("sites/s"));
        Files.createDirectories(root.resolve("content"));
        Files.writeString(root.resolve("outside.xsl"), "<xsl:stylesheet version='3.0' xmlns:xsl='http://www.w3.org/1999/XSL/Transform'/>");
        Files.writeString(site.resolve("site.xml"), "<site xmlns='urn:arno:site' name='s'><prefix>/s</prefix>"
                + "<route name='r' pattern='/r'><template xslt='../../outside.xsl'/></route></site>");
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> Sites.compile(PipelineCasesTest.config(root, true), null));
        assertThat(t).isInstanceOf(arno.xml.ArnoException.class);
        assertThat(((arno.xml.ArnoException) t).code()).isEqualTo(ErrorCode.SITE_ERROR);
        assertThat(t.getMessage()).contains("site.xml").contains("outside the allowed folders");
    }

    @Test
    void aLinkThatStaysInsideIsFollowed() throws Exception {
        if (!canLink(content.resolve("alias.xml"), content.resolve("a.xml"))) return;
        Exchange x = read("alias");
        assertThat(x.respond().toString()).contains("inside");
        assertThat(x.error()).isNull();
    }
}
