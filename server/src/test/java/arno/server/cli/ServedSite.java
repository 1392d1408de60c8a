package arno.server.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The one-site folder the {@code serve} tests run: SITES/t at {@code /t}, its pages answering "served t" as text. */
final class ServedSite {

    /**
     * Writes SITES/t: a site.xml with prefix {@code /t} around {@code body} (its cache bounds and
     * routes), and {@code t.xsl}, the template those routes name. Returns the site's folder, for
     * further files.
     */
    static Path write(Path sites, String body) throws IOException {
        Path t = Files.createDirectories(sites.resolve("t"));
        Files.writeString(t.resolve("site.xml"), """
                <site xmlns="urn:arno:site" name="t">
                  <prefix>/t</prefix>
                """ + body.stripIndent().indent(2) + "</site>");
        Files.writeString(t.resolve("t.xsl"), """
                <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                                xmlns:rsp="urn:arno:response">
                  <xsl:template match="/">
                    <rsp:response><rsp:body method="text">served t</rsp:body></rsp:response>
                  </xsl:template>
                </xsl:stylesheet>""");
        return t;
    }

    private ServedSite() {
    }
}
