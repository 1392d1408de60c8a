package arno.fulltext;

import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.WriteTransaction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A generated corpus of articles stored as the demo stores them: an Atom entry (title, authors,
 * summary, keyword and type categories, published, DOI) and a JATS variant (journal, body), plus
 * issues (entries of another kind). Words come from a vocabulary whose English stems are all
 * distinct, so that a whole-word scan of the text is an exact reference for the index.
 */
final class Articles {

    static final String[] WORDS = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
        "juliett", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform",
        "victor", "whiskey", "xray", "yankee", "zulu"};
    static final String[] JOURNALS = {"Journal A", "Journal B"};
    static final String[] TYPES = {"research-article", "review-article", "editorial"};

    /** One article as written: the text of each searchable field, for the reference scan. */
    record Article(String path, String title, String summary, String body, List<String> authors, List<String> keywords,
                   String journal, String type, int year, String date) {
        String entry() {
            StringBuilder b = new StringBuilder("<entry xmlns=\"http://www.w3.org/2005/Atom\""
                    + " xmlns:prism=\"http://prismstandard.org/namespaces/basic/2.0/\">\n");
            b.append("<id>urn:test:").append(path).append("</id><title>").append(title).append("</title>\n");
            b.append("<updated>").append(date).append("T00:00:00Z</updated><published>").append(date)
                    .append("T00:00:00Z</published>\n");
            b.append("<category scheme=\"urn:arno:kind\" term=\"article\"/>\n");
            for (String a : authors) b.append("<author><name>").append(a).append("</name></author>\n");
            b.append("<category scheme=\"urn:arno:article-type\" term=\"").append(type).append("\"/>\n");
            for (String k : keywords) b.append("<category scheme=\"urn:arno:keyword\" term=\"").append(k).append("\"/>\n");
            b.append("<summary>").append(summary).append("</summary>\n");
            b.append("<prism:doi>10.5555/").append(path.substring(path.lastIndexOf('/') + 1)).append("</prism:doi>\n");
            return b.append("</entry>\n").toString();
        }

        String jats() {
            return "<article article-type=\"" + type + "\"><front><journal-meta><journal-title-group><journal-title>"
                    + journal + "</journal-title></journal-title-group></journal-meta></front>\n<body><sec><title>Text</title>\n<p>"
                    + body + "</p>\n</sec></body></article>\n";
        }

        /** The searchable text fields by name, as the default configuration takes them. */
        Map<String, List<String>> text() {
            Map<String, List<String>> m = new LinkedHashMap<>();
            m.put("title", List.of(title));
            m.put("abstract", List.of(summary));
            m.put("body", List.of("Text\n" + body));
            m.put("authors", authors);
            m.put("keywords", keywords);
            return m;
        }
    }

    static Store open(Path dir) {
        return Store.open(dir, StoreOptions.defaults().mapSize(256L << 20));
    }

    static Store open(Path dir, Duration retention) {
        return Store.open(dir, StoreOptions.defaults().mapSize(256L << 20).changeRetention(retention));
    }

    static String words(Random r, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (i > 0) b.append(i % 9 == 0 ? ". " : " ");
            b.append(WORDS[r.nextInt(WORDS.length)]);
        }
        return b.toString();
    }

    /** {@code n} articles from {@code seed}: under /journals/ja or jb, ten per issue. */
    static List<Article> generate(int n, long seed) {
        Random r = new Random(seed);
        List<Article> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int j = i % 2;
            String path = "/journals/j" + (char) ('a' + j) + "/v1/i" + (i / 20 + 1) + "/a" + i;
            int year = 2015 + r.nextInt(10);
            String date = year + "-0" + (1 + r.nextInt(9)) + "-1" + r.nextInt(10);
            List<String> authors = List.of(cap(WORDS[r.nextInt(WORDS.length)]) + " " + cap(WORDS[r.nextInt(WORDS.length)]));
            List<String> keywords = List.of(WORDS[r.nextInt(WORDS.length)], WORDS[r.nextInt(WORDS.length)]);
            out.add(new Article(path, cap(words(r, 4)), words(r, 20), words(r, 60 + r.nextInt(60)), authors, keywords,
                    JOURNALS[j], TYPES[r.nextInt(TYPES.length)], year, date));
        }
        return out;
    }

    private static String cap(String w) {
        return Character.toUpperCase(w.charAt(0)) + w.substring(1);
    }

    /** Stores the articles, their issues' entries (kind issue) and, if asked, the default configuration. */
    static long store(Store store, List<Article> articles, boolean config) {
        try (WriteTransaction w = store.write()) {
            if (config) w.put(FulltextConfig.URI, FulltextConfig.defaultXml());
            for (Article a : articles) put(w, a);
            for (Article a : articles) {
                String issue = a.path().substring(0, a.path().lastIndexOf('/'));
                w.put(issue + ".atom", ("<entry xmlns=\"http://www.w3.org/2005/Atom\"><id>urn:test:" + issue
                        + "</id><title>Issue alpha bravo</title><updated>2020-01-01T00:00:00Z</updated>"
                        + "<category scheme=\"urn:arno:kind\" term=\"issue\"/></entry>").getBytes(StandardCharsets.UTF_8));
            }
            return w.commit();
        }
    }

    static void put(WriteTransaction w, Article a) {
        w.put(a.path() + ".atom", a.entry().getBytes(StandardCharsets.UTF_8));
        w.put(a.path() + ".xml", a.jats().getBytes(StandardCharsets.UTF_8));
    }
}
