package arno.perf.store;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * The benchmark documents, generated deterministically: a flat document shaped like the
 * Wikipedia abstracts dump ({@code feed/doc/title,url,abstract,links/sublink}), of any size and
 * streamed to a writer so even 1 GB needs no memory; and a JATS-like journal article of about
 * 100 KB (front matter, sections of mixed content, figures, references).
 */
final class Docs {

    private static final String[] WORDS = {"the", "of", "and", "in", "history", "theory", "river", "city", "state",
        "music", "album", "species", "family", "university", "football", "season", "politician", "born", "village",
        "district", "population", "church", "railway", "station", "film", "series", "character", "novel", "language",
        "was", "is", "a", "an", "by", "for", "from", "with", "known", "first", "American", "English", "German"};

    private Docs() {
    }

    static String words(Random r, int n, boolean capitalize) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                b.append(' ');
            }
            String w = WORDS[r.nextInt(WORDS.length)];
            b.append(capitalize ? Character.toUpperCase(w.charAt(0)) + w.substring(1) : w);
        }
        return b.toString();
    }

    /**
     * Writes abstracts until at least {@code bytes} characters; every 1000th sublink has
     * {@code linktype="rare"}, the target of the {@code //sublink[@linktype = 'rare']} scan.
     */
    static long abstracts(Writer out, long bytes, long seed) throws IOException {
        Random r = new Random(seed);
        long written = 0;
        long links = 0;
        StringBuilder b = new StringBuilder(4096);
        b.append("<feed>\n");
        int n = 0;
        while (written + b.length() < bytes) {
            String title = words(r, 1 + r.nextInt(3), true);
            String slug = title.replace(' ', '_');
            b.append("<doc>\n<title>Wikipedia: ").append(title).append("</title>\n");
            b.append("<url>https://en.wikipedia.org/wiki/").append(slug).append("</url>\n");
            b.append("<abstract>").append(words(r, 10 + r.nextInt(60), false)).append(".</abstract>\n<links>\n");
            int k = r.nextInt(8);
            for (int j = 0; j < k; j++) {
                String anchor = words(r, 1 + r.nextInt(2), true);
                b.append("<sublink linktype=\"").append(++links % 1000 == 0 ? "rare" : "nav").append("\"><anchor>")
                        .append(anchor).append("</anchor><link>https://en.wikipedia.org/wiki/").append(slug)
                        .append('#').append(anchor.replace(' ', '_')).append("</link></sublink>\n");
            }
            b.append("</links>\n</doc>\n");
            if (b.length() > 64 * 1024) {
                out.write(b.toString());
                written += b.length();
                b.setLength(0);
            }
            n++;
        }
        b.append("</feed>\n");
        out.write(b.toString());
        written += b.length();
        return written;
    }

    static String abstracts(long bytes, long seed) {
        java.io.StringWriter w = new java.io.StringWriter((int) bytes + 4096);
        try {
            abstracts(w, bytes, seed);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return w.toString();
    }

    /** Writes the abstracts document to a file, streaming; returns its size in bytes. */
    static long abstractsFile(Path file, long bytes, long seed) throws IOException {
        try (Writer w = new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8), 1 << 16)) {
            abstracts(w, bytes, seed);
        }
        return Files.size(file);
    }

    /** A JATS-like article of about 100 KB. */
    static String article(long seed) {
        Random r = new Random(seed);
        StringBuilder b = new StringBuilder(110_000);
        b.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        b.append("<article xmlns:xlink=\"http://www.w3.org/1999/xlink\" xmlns:mml=\"http://www.w3.org/1998/Math/MathML\""
                + " article-type=\"research-article\" dtd-version=\"1.3\" xml:lang=\"en\">\n<front>\n");
        b.append("<journal-meta><journal-id journal-id-type=\"publisher\">ja</journal-id>"
                + "<journal-title-group><journal-title>Journal A</journal-title></journal-title-group>"
                + "<issn pub-type=\"epub\">1234-5678</issn></journal-meta>\n<article-meta>\n");
        b.append("<article-id pub-id-type=\"doi\">10.1234/ja.").append(seed).append("</article-id>\n");
        b.append("<title-group><article-title>").append(words(r, 8, true)).append("</article-title></title-group>\n");
        b.append("<contrib-group>\n");
        for (int i = 0; i < 6; i++) {
            b.append("<contrib contrib-type=\"author\"><name><surname>").append(words(r, 1, true))
                    .append("</surname><given-names>").append(words(r, 1, true))
                    .append("</given-names></name><xref ref-type=\"aff\" rid=\"aff").append(i % 3 + 1)
                    .append("\">").append(i % 3 + 1).append("</xref></contrib>\n");
        }
        b.append("</contrib-group>\n");
        for (int i = 1; i <= 3; i++) {
            b.append("<aff id=\"aff").append(i).append("\"><label>").append(i).append("</label>")
                    .append(words(r, 5, true)).append("</aff>\n");
        }
        b.append("<abstract><p>").append(words(r, 150, false)).append(".</p></abstract>\n");
        b.append("</article-meta>\n</front>\n<body>\n");
        int fig = 0;
        int ref = 0;
        while (b.length() < 85_000) {
            int sec = b.length();
            b.append("<sec id=\"s").append(sec).append("\"><title>").append(words(r, 4, true)).append("</title>\n");
            for (int p = 0; p < 6; p++) {
                b.append("<p>");
                for (int s = 0; s < 5; s++) {
                    b.append(words(r, 8 + r.nextInt(12), s == 0));
                    switch (r.nextInt(6)) {
                        case 0 -> b.append(" <italic>").append(words(r, 2, false)).append("</italic>");
                        case 1 -> b.append(" <xref ref-type=\"bibr\" rid=\"b").append(++ref % 40 + 1).append("\">[")
                                .append(ref % 40 + 1).append("]</xref>");
                        case 2 -> b.append(" (<xref ref-type=\"fig\" rid=\"f").append(fig + 1).append("\">Figure ")
                                .append(fig + 1).append("</xref>)");
                        case 3 -> b.append(" <inline-formula><mml:math><mml:mi>x</mml:mi><mml:mo>=</mml:mo><mml:mn>")
                                .append(r.nextInt(100)).append("</mml:mn></mml:math></inline-formula>");
                        default -> b.append("");
                    }
                    b.append(". ");
                }
                b.append("</p>\n");
            }
            fig++;
            b.append("<fig id=\"f").append(fig).append("\" position=\"float\"><label>Figure ").append(fig)
                    .append("</label><caption><p>").append(words(r, 20, true)).append(".</p></caption>")
                    .append("<graphic xlink:href=\"f").append(fig).append(".png\"/></fig>\n</sec>\n");
        }
        b.append("</body>\n<back>\n<ref-list>\n");
        for (int i = 1; i <= 40; i++) {
            b.append("<ref id=\"b").append(i).append("\"><mixed-citation publication-type=\"journal\"><person-group>")
                    .append("<name><surname>").append(words(r, 1, true)).append("</surname><given-names>")
                    .append(words(r, 1, true).charAt(0)).append("</given-names></name></person-group>. <article-title>")
                    .append(words(r, 7, true)).append("</article-title>. <source>").append(words(r, 2, true))
                    .append("</source>. <year>").append(1950 + r.nextInt(70)).append("</year>;<volume>")
                    .append(r.nextInt(90)).append("</volume>:<fpage>").append(r.nextInt(900)).append("</fpage>.")
                    .append("</mixed-citation></ref>\n");
        }
        b.append("</ref-list>\n</back>\n</article>\n");
        return b.toString();
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
