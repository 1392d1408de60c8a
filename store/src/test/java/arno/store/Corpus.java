package arno.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The documents the store is tested on, reached through this one class: the edge-case files
 * under {@code src/test/resources/arno/store/corpus/}, generated documents that stress one
 * dimension (depth, attributes, text length, width), and random documents from a seed.
 */
final class Corpus {

    static final List<String> FILES = List.of("namespaces.xml", "mixed.xml", "ids.xml", "jats.xml");

    private Corpus() {
    }

    static String file(String name) {
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
    static Map<String, String> edgeCases() {
        Map<String, String> m = new LinkedHashMap<>();
        for (String f : FILES) {
            m.put(f, file(f));
        }
        m.put("deep.xml", deep(1000));
        m.put("attributes.xml", manyAttributes(600));
        m.put("long-text.xml", longText(1_500_000));
        m.put("wide.xml", wide(8_000));
        m.put("abstracts.xml", abstracts(300, 7));
        return m;
    }

    /** Nesting {@code depth} deep, text and an attribute at every level. */
    static String deep(int depth) {
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

    static String manyAttributes(int n) {
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
    static String longText(int chars) {
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
    static String wide(int n) {
        StringBuilder b = new StringBuilder("<wide>");
        for (int i = 0; i < n; i++) {
            b.append("<item n=\"").append(i).append("\"><k>").append(i % 97).append("</k>");
            b.append(i % 5 == 0 ? "<v/>" : "<v>" + "text ".repeat(20 + i % 13) + "</v>");
            b.append("</item>\n");
        }
        return b.append("</wide>").toString();
    }

    /** A flat document shaped like the Wikipedia abstracts dump (feed/doc/title,url,abstract,links). */
    static String abstracts(int docs, long seed) {
        Random r = new Random(seed);
        StringBuilder b = new StringBuilder(docs * 1000);
        b.append("<feed>\n");
        for (int i = 0; i < docs; i++) {
            String title = words(r, 1 + r.nextInt(3), true);
            b.append("<doc>\n<title>Wikipedia: ").append(title).append("</title>\n");
            String slug = title.replace(' ', '_');
            b.append("<url>https://en.wikipedia.org/wiki/").append(slug).append("</url>\n");
            b.append("<abstract>").append(words(r, 10 + r.nextInt(60), false)).append(".</abstract>\n<links>\n");
            int links = r.nextInt(8);
            for (int j = 0; j < links; j++) {
                String anchor = words(r, 1 + r.nextInt(2), true);
                b.append("<sublink linktype=\"nav\"><anchor>").append(anchor)
                        .append("</anchor><link>https://en.wikipedia.org/wiki/").append(slug).append('#')
                        .append(anchor.replace(' ', '_')).append("</link></sublink>\n");
            }
            b.append("</links>\n</doc>\n");
        }
        return b.append("</feed>\n").toString();
    }

    private static final String[] WORDS = {"the", "of", "and", "in", "history", "theory", "river", "city", "state",
        "music", "album", "species", "family", "university", "football", "season", "politician", "born", "village",
        "district", "population", "church", "railway", "station", "film", "series", "character", "novel", "language"};

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

    // ---- random documents ----

    static final String[] PREFIXES = {"p", "q", "x"};
    static final String[] LOCALS = {"a", "b", "c", "d", "e"};
    static final String[] ATTRS = {"n", "m", "id", "class", "k"};
    static final String[] TEXTS = {"alpha", " ", "\n  ", "beta gamma", "é", "😀 𝔸", "&amp; &lt; &gt;", "x", "12",
        "tab\there", "  padded  ", "&#x1F600;"};

    /** A random document: names from small pools, random namespaces, mixed content, all kinds. */
    static String random(long seed) {
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
