package arno.testkit;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The one corpus the tests and benchmarks read and write, all of it deterministic: edge-case
 * files ({@code src/main/resources/arno/testkit/corpus/}), generated documents that stress one
 * dimension (depth, attributes, text length, width), a flat document shaped like the Wikipedia
 * abstracts dump of any size (streamed, so even 1 GB needs no memory), a JATS-like journal article
 * of about 100 KB, and random documents from a seed. (The XMark auction document is {@link XMark}.)
 */
public final class Corpus {

    /** The edge-case files, by name for {@link #file}. */
    public static final List<String> FILES = List.of("namespaces.xml", "mixed.xml", "ids.xml", "jats.xml");

    private Corpus() {
    }

    /** One of {@link #FILES}. */
    public static String file(String name) {
        try (InputStream in = Corpus.class.getResourceAsStream("corpus/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no corpus file " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Name → XML of every fixed and generated edge case (not the random ones). */
    public static Map<String, String> edgeCases() {
        Map<String, String> m = new LinkedHashMap<>();
        for (String f : FILES) {
            m.put(f, file(f));
        }
        m.put("deep.xml", deep(1000));
        m.put("attributes.xml", manyAttributes(600));
        m.put("long-text.xml", longText(1_500_000));
        m.put("wide.xml", wide(8_000));
        m.put("abstracts.xml", abstractDocs(300, 7));
        return m;
    }

    /** Nesting {@code depth} deep, text and an attribute at every level. */
    public static String deep(int depth) {
        StringBuilder b = new StringBuilder("<deep>");
        for (int i = 0; i < depth; i++) {
            b.append("<d n=\"").append(i).append("\">t").append(i);
        }
        for (int i = depth - 1; i >= 0; i--) {
            b.append("</d>");
            if (i % 100 == 0) {
                b.append("<after n=\"").append(i).append("\"/>");
            }
        }
        return b.append("</deep>").toString();
    }

    /** An element with {@code n} attributes (every 7th in a namespace) and one with a third as many, of varied lengths. */
    public static String manyAttributes(int n) {
        StringBuilder b = new StringBuilder("<many xmlns:p=\"urn:p\">");
        b.append("<e");
        for (int i = 0; i < n; i++) {
            b.append(i % 7 == 0 ? " p:a" : " a").append(i).append("=\"v").append(i * 31).append("\"");
        }
        b.append(">content</e><f");
        for (int i = 0; i < n; i += 3) {
            b.append(" b").append(i).append("=\"").append("x".repeat(i % 50)).append("\"");
        }
        return b.append("/></many>").toString();
    }

    /**
     * A text node longer than a chunk (1 MiB) with multi-byte characters across the boundary, and
     * an attribute value larger than 64 KiB, so both span chunks and sizes go to the BIGS table.
     */
    public static String longText(int chars) {
        StringBuilder t = new StringBuilder(chars);
        String pattern = "lorem ipsum é 😀 ∑ dolor ";
        while (t.length() < chars) {
            t.append(pattern);
        }
        String attr = "v".repeat(70_000) + "é😀";
        return "<long><before>x</before><text big=\"" + attr + "\">" + t + "</text><after>y</after></long>";
    }

    /**
     * Many siblings with some text: over a chunk (1 MiB) stored, so navigation crosses chunk
     * boundaries everywhere, with many subtrees and an element larger than 64 KiB.
     */
    public static String wide(int n) {
        StringBuilder b = new StringBuilder("<wide>");
        for (int i = 0; i < n; i++) {
            b.append("<item n=\"").append(i).append("\"><k>").append(i % 97).append("</k>");
            b.append(i % 5 == 0 ? "<v/>" : "<v>" + "text ".repeat(20 + i % 13) + "</v>");
            b.append("</item>\n");
        }
        return b.append("</wide>").toString();
    }

    // ---- the abstracts dump and the article ----

    private static final String[] WORDS = {"the", "of", "and", "in", "history", "theory", "river", "city", "state",
        "music", "album", "species", "family", "university", "football", "season", "politician", "born", "village",
        "district", "population", "church", "railway", "station", "film", "series", "character", "novel", "language",
        "was", "is", "a", "an", "by", "for", "from", "with", "known", "first", "American", "English", "German"};

    /** {@code n} words from a small vocabulary, each capitalised if asked. */
    public static String words(Random r, int n, boolean capitalize) {
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
     * Writes the abstracts document ({@code feed/doc/title,url,abstract,links/sublink}) until at
     * least {@code bytes} characters; returns the characters written. Every 1000th sublink has
     * {@code linktype="rare"}, the target of perf's {@code //sublink[@linktype = 'rare']} scan.
     */
    public static long abstracts(Writer out, long bytes, long seed) throws IOException {
        return abstracts(out, bytes, Integer.MAX_VALUE, seed);
    }

    /** {@link #abstracts(Writer, long, long)} as a string. */
    public static String abstracts(long bytes, long seed) {
        StringWriter w = new StringWriter((int) bytes + 4096);
        try {
            abstracts(w, bytes, seed);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }

    /** Writes the abstracts document to a file, streaming; returns its size in bytes. */
    public static long abstractsFile(Path file, long bytes, long seed) throws IOException {
        try (Writer w = new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8), 1 << 16)) {
            abstracts(w, bytes, seed);
        }
        return Files.size(file);
    }

    /** The abstracts document with {@code docs} doc elements. */
    public static String abstractDocs(int docs, long seed) {
        StringWriter w = new StringWriter(docs * 1000);
        try {
            abstracts(w, Long.MAX_VALUE, docs, seed);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }

    /** The one abstracts generator: docs until {@code bytes} characters or {@code docs} docs, whichever comes first. */
    private static long abstracts(Writer out, long bytes, int docs, long seed) throws IOException {
        Random r = new Random(seed);
        long written = 0;
        long links = 0;
        StringBuilder b = new StringBuilder(4096);
        b.append("<feed>\n");
        for (int n = 0; n < docs && written + b.length() < bytes; n++) {
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
        }
        b.append("</feed>\n");
        out.write(b.toString());
        written += b.length();
        return written;
    }

    /** A JATS-like article of about 100 KB. */
    public static String article(long seed) {
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

    // ---- random documents ----

    private static final String[] PREFIXES = {"p", "q", "x"};
    private static final String[] LOCALS = {"a", "b", "c", "d", "e"};
    private static final String[] ATTRS = {"n", "m", "id", "class", "k"};
    private static final String[] TEXTS = {"alpha", " ", "\n  ", "beta gamma", "é", "😀 𝔸", "&amp; &lt; &gt;", "x", "12",
        "tab\there", "  padded  ", "&#x1F600;"};

    /** A random document: names from small pools, random namespaces, mixed content, all kinds. */
    public static String random(long seed) {
        Random r = new Random(seed);
        StringBuilder b = new StringBuilder();
        if (r.nextInt(3) == 0) {
            b.append("<!--lead-->");
        }
        if (r.nextInt(3) == 0) {
            b.append("<?lead data?>");
        }
        element(r, b, 0, new ArrayList<>(), 2 + r.nextInt(6));
        if (r.nextInt(3) == 0) {
            b.append("<!--trail-->");
        }
        return b.toString();
    }

    private static void element(Random r, StringBuilder b, int depth, List<String> inScope, int maxDepth) {
        List<String> scope = new ArrayList<>(inScope);
        StringBuilder decl = new StringBuilder();
        int nDecl = r.nextInt(4) == 0 ? 1 + r.nextInt(2) : 0;
        for (int i = 0; i < nDecl; i++) {
            int kind = r.nextInt(5);
            boolean defaultDeclared = decl.indexOf(" xmlns=") >= 0;
            if (kind == 0 && !defaultDeclared) {
                decl.append(" xmlns=\"urn:d").append(r.nextInt(2)).append('"');
            } else if (kind == 1 && depth > 0 && !defaultDeclared) {
                decl.append(" xmlns=\"\"");
            } else {
                String p = PREFIXES[r.nextInt(PREFIXES.length)];
                if (decl.indexOf("xmlns:" + p + "=") < 0) {
                    decl.append(" xmlns:").append(p).append("=\"urn:").append(p).append(r.nextInt(2)).append('"');
                    if (!scope.contains(p)) {
                        scope.add(p);
                    }
                }
            }
        }
        String name = LOCALS[r.nextInt(LOCALS.length)];
        if (!scope.isEmpty() && r.nextInt(3) == 0) {
            name = scope.get(r.nextInt(scope.size())) + ":" + name;
        }
        b.append('<').append(name).append(decl);
        int nAtts = r.nextInt(4);
        List<String> used = new ArrayList<>();
        for (int i = 0; i < nAtts; i++) {
            String local = ATTRS[r.nextInt(ATTRS.length)];
            if (used.contains(local)) {
                continue;
            }
            used.add(local);
            String an = local;
            if (local.equals("id")) {
                an = "xml:id";
            } else if (!scope.isEmpty() && r.nextInt(3) == 0) {
                an = scope.get(r.nextInt(scope.size())) + ":" + local;
            }
            String v = an.equals("xml:id") ? "i" + r.nextInt(20) : TEXTS[r.nextInt(TEXTS.length)];
            b.append(' ').append(an).append("=\"").append(v.replace("\"", "&quot;")).append('"');
        }
        int children = depth >= maxDepth ? 0 : r.nextInt(6);
        if (children == 0 && r.nextBoolean()) {
            b.append("/>");
            return;
        }
        b.append('>');
        for (int i = 0; i < children; i++) {
            switch (r.nextInt(10)) {
                case 0 -> b.append("<!--c").append(r.nextInt(9)).append("-->");
                case 1 -> b.append("<?pi").append(r.nextInt(2)).append(" d").append(r.nextInt(9)).append("?>");
                case 2, 3 -> b.append(TEXTS[r.nextInt(TEXTS.length)]);
                case 4 -> b.append("<![CDATA[cd<").append(r.nextInt(9)).append(">]]>");
                default -> element(r, b, depth + 1, scope, maxDepth);
            }
        }
        b.append("</").append(name).append('>');
    }
}
