package arno.fulltext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.store.Store;
import arno.store.WriteTransaction;
import arno.xml.ArnoException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The index over a real store and real Lucene, with the demo's default configuration: what it
 * finds against a full scan of the generated text, ranking, filters, sort, facets, snippets and
 * paging. One store and index for the class (building is the slow part); tests that write use
 * their own.
 */
class FulltextIndexTest {

    @TempDir
    static Path dir;
    static Store store;
    static FulltextIndex index;
    static List<Articles.Article> articles;

    @BeforeAll
    static void build() throws Exception {
        store = Articles.open(dir.resolve("store"));
        articles = Articles.generate(120, 7);
        long v = Articles.store(store, articles, true);
        index = FulltextIndex.open(store, dir.resolve("fulltext"), FulltextIndex.Options.defaults());
        assertThat(index.awaitVersion(v, Duration.ofSeconds(30))).as("index ready: %s", index.status()).isTrue();
    }

    @AfterAll
    static void close() {
        if (index != null) index.close();
        if (store != null) store.close();
    }

    /** Every path a query finds, through all its pages (after). */
    static Set<String> all(String q, Map<String, List<String>> filters) {
        Set<String> out = new TreeSet<>();
        String after = null;
        int pages = 0;
        do {
            Map<String, List<String>> o = new TreeMap<>(filters);
            o.put("size", List.of("7"));
            if (after != null) o.put("after", List.of(after));
            Results r = index.search(SearchRequest.of(q, o));
            for (Results.Hit h : r.hits()) assertThat(out.add(h.path())).as("%s seen once", h.path()).isTrue();
            after = r.next();
            assertThat(++pages).isLessThan(100);
        } while (after != null);
        return out;
    }

    static Set<String> scan(Predicate<Articles.Article> p) {
        Set<String> out = new TreeSet<>();
        for (Articles.Article a : articles) if (p.test(a)) out.add(a.path());
        return out;
    }

    /** Whether a whole word (or phrase, words separated by spaces or full stops) is in one value of the fields. */
    static Predicate<Articles.Article> has(String phrase, String... fields) {
        Pattern p = Pattern.compile("\\b" + phrase.replace(" ", "[\\s.]+") + "\\b", Pattern.CASE_INSENSITIVE);
        return a -> {
            for (Map.Entry<String, List<String>> f : a.text().entrySet()) {
                if (fields.length > 0 && !List.of(fields).contains(f.getKey())) continue;
                for (String v : f.getValue()) if (p.matcher(v).find()) return true;
            }
            return false;
        };
    }

    @Test
    void lookupsAgreeWithAFullScan() {
        Map<String, List<String>> none = Map.of();
        assertThat(all("foxtrot", none)).isEqualTo(scan(has("foxtrot"))).isNotEmpty();
        assertThat(all("Foxtrot golf", none)).isEqualTo(scan(has("foxtrot").and(has("golf"))));
        assertThat(all("foxtrot OR golf", none)).isEqualTo(scan(has("foxtrot").or(has("golf"))));
        assertThat(all("foxtrot -golf", none)).isEqualTo(scan(has("foxtrot").and(has("golf").negate())));
        assertThat(all("\"kilo lima\"", none)).isEqualTo(scan(has("kilo lima"))).isNotEmpty();
        assertThat(all("title:zulu", none)).isEqualTo(scan(has("zulu", "title"))).isNotEmpty();
        assertThat(all("fox*", none)).isEqualTo(scan(has("foxtrot")));
        // A word that is no word (punctuation) drops out; the others still search every field.
        assertThat(all("foxtrot <&>", none)).isEqualTo(scan(has("foxtrot")));
        assertThat(all("(alpha OR bravo) AND title:charlie", none))
                .isEqualTo(scan(has("alpha").or(has("bravo")).and(has("charlie", "title"))));
        // Only articles are configured: the issues' titles ("Issue alpha bravo") are not found.
        assertThat(all("alpha", none)).allMatch(p -> p.matches("/journals/j[ab]/v1/i\\d+/a\\d+"));
    }

    @Test
    void filtersAgreeWithAFullScan() {
        assertThat(all("mike", Map.of("journal", List.of("Journal B"))))
                .isEqualTo(scan(has("mike").and(a -> a.journal().equals("Journal B")))).isNotEmpty();
        assertThat(all("mike", Map.of("year-from", List.of("2018"), "year-to", List.of("2020"))))
                .isEqualTo(scan(has("mike").and(a -> a.year() >= 2018 && a.year() <= 2020))).isNotEmpty();
        assertThat(all("mike", Map.of("type", List.of("editorial", "review-article"))))
                .isEqualTo(scan(has("mike").and(a -> !a.type().equals("research-article"))));
        assertThat(all("mike year:[2019 TO 2021]", Map.of()))
                .isEqualTo(scan(has("mike").and(a -> a.year() >= 2019 && a.year() <= 2021)));
    }

    @Test
    void facetsCountEveryHit() {
        Results r = index.search(SearchRequest.of("oscar"));
        Map<String, Long> years = new TreeMap<>();
        for (Articles.Article a : articles) if (has("oscar").test(a)) years.merge(Integer.toString(a.year()), 1L, Long::sum);
        Map<String, Long> counted = new TreeMap<>();
        for (Results.Facet f : r.facets()) {
            if (f.field().equals("year")) for (Results.Count c : f.values()) counted.put(c.value(), c.count());
        }
        assertThat(counted).isEqualTo(years);
        assertThat(r.total()).isEqualTo(scan(has("oscar")).size());
        assertThat(r.facets()).extracting(Results.Facet::field).containsExactly("subject", "journal", "type", "year");
    }

    @Test
    void manyMatchesAreCountedFromASampleAndTheHitsStayTheSame() throws Exception {
        // The same store with a sample of 10 matches: "oscar" matches far more, so its counts are estimates.
        FulltextIndex.Options o = FulltextIndex.Options.defaults();
        try (FulltextIndex sampled = FulltextIndex.open(store, dir.resolve("fulltext-sampled"),
                new FulltextIndex.Options(o.poll(), o.commitEvery(), o.timeout(), 2, o.searchWait(), 10))) {
            assertThat(sampled.awaitVersion(index.status().version(), Duration.ofSeconds(30))).isTrue();
            Results exact = index.search(SearchRequest.of("oscar"));
            Results estimate = sampled.search(SearchRequest.of("oscar"));
            assertThat(exact.exact()).isTrue();
            assertThat(exact.facets()).allMatch(Results.Facet::exact);
            // Fewer than Search.EXACT_HITS match, so the top hits counted them: the total stays exact.
            assertThat(estimate.exact()).isTrue();
            assertThat(estimate.total()).isEqualTo(exact.total()).isGreaterThan(20);
            assertThat(estimate.facets()).noneMatch(Results.Facet::exact);
            assertThat(estimate.hits()).extracting(Results.Hit::path).isEqualTo(exact.hits().stream().map(Results.Hit::path).toList());
            Results about = new Results(estimate.query(), estimate.total(), false, estimate.start(), estimate.size(), estimate.hits(),
                    estimate.facets(), estimate.next(), estimate.version());
            java.io.StringWriter xml = new java.io.StringWriter();
            javax.xml.stream.XMLStreamWriter w = javax.xml.stream.XMLOutputFactory.newInstance().createXMLStreamWriter(xml);
            ResultsXml.write(about, w);
            w.close();
            assertThat(xml.toString()).containsPattern("<store:results [^>]*approximate=\"true\"")
                    .containsPattern("<store:facet field=\"year\" approximate=\"true\"");
        }
    }

    @Test
    void titleMatchesRankAboveBodyMatches() {
        // Articles with the word only in the title against those with it only in the body.
        Results r = index.search(new SearchRequest("whiskey", 0, 100, null, "relevance", Map.of(), false, 0));
        Set<String> titleOnly = scan(has("whiskey", "title").and(has("whiskey", "abstract", "body", "authors", "keywords").negate()));
        Set<String> bodyOnly = scan(has("whiskey", "body").and(has("whiskey", "title", "abstract", "authors", "keywords").negate()));
        assertThat(titleOnly).isNotEmpty();
        assertThat(bodyOnly).isNotEmpty();
        float lowestTitle = Float.MAX_VALUE;
        float highestBody = 0;
        for (Results.Hit h : r.hits()) {
            if (titleOnly.contains(h.path())) lowestTitle = Math.min(lowestTitle, h.score());
            if (bodyOnly.contains(h.path())) highestBody = Math.max(highestBody, h.score());
        }
        assertThat(lowestTitle).isGreaterThan(highestBody);
    }

    @Test
    void sortsByDateNewestFirst() {
        Results r = index.search(new SearchRequest("tango", 0, 100, null, "date", Map.of(), false, 0));
        List<String> dates = new ArrayList<>();
        for (Results.Hit h : r.hits()) dates.add(h.fields().get("date").get(0));
        assertThat(dates).hasSizeGreaterThan(3).isSortedAccordingTo(java.util.Comparator.reverseOrder());
        // Pages by date go through every hit once, too.
        Set<String> paged = new HashSet<>();
        String after = null;
        do {
            Results p = index.search(new SearchRequest("tango", 0, 5, after, "date", Map.of(), false, 0));
            for (Results.Hit h : p.hits()) assertThat(paged.add(h.path())).isTrue();
            after = p.next();
        } while (after != null);
        assertThat(paged).isEqualTo(scan(has("tango")));
    }

    @Test
    void snippetsMarkTheMatchesFromTheIndex() {
        Results r = index.search(new SearchRequest("\"kilo lima\" november", 0, 10, null, "relevance", Map.of(), false, 2));
        assertThat(r.hits()).isNotEmpty();
        for (Results.Hit h : r.hits()) {
            Articles.Article a = articles.stream().filter(x -> x.path().equals(h.path())).findFirst().orElseThrow();
            assertThat(h.snippets()).isNotEmpty();
            for (Results.Snippet s : h.snippets()) {
                StringBuilder text = new StringBuilder();
                for (Results.Part p : s.parts()) {
                    if (p.match()) assertThat(p.text().toLowerCase()).isIn("kilo lima", "kilo. lima", "november"); // a phrase is one match
                    text.append(p.text());
                }
                String source = String.join(" ", a.text().get(s.field())).replaceAll("\\s+", " ");
                assertThat(source).contains(text.toString().strip());
            }
            assertThat(h.snippets().stream().flatMap(s -> s.parts().stream()).anyMatch(Results.Part::match)).isTrue();
            assertThat(h.fields().get("title")).containsExactly(a.title());
            assertThat(h.fields().get("journal")).containsExactly(a.journal());
        }
    }

    @Test
    void shallowPagesAreSlicesOfOneRanking() {
        Results all = index.search(new SearchRequest("alpha", 0, 30, null, "relevance", Map.of(), false, 0));
        Results second = index.search(new SearchRequest("alpha", 10, 10, null, "relevance", Map.of(), false, 0));
        assertThat(second.hits()).extracting(Results.Hit::path)
                .isEqualTo(all.hits().subList(10, 20).stream().map(Results.Hit::path).toList());
        assertThat(second.start()).isEqualTo(10);
    }

    @Test
    void badOptionsAreRefused() {
        assertThatThrownBy(() -> index.search(SearchRequest.of("alpha", Map.of("colour", List.of("red")))))
                .isInstanceOf(ArnoException.class).hasMessageContaining("colour");
        assertThatThrownBy(() -> index.search(SearchRequest.of("alpha", Map.of("after", List.of("garbage")))))
                .isInstanceOf(ArnoException.class).hasMessageContaining("after");
        assertThatThrownBy(() -> SearchRequest.of("alpha", Map.of("size", List.of("1000"))))
                .isInstanceOf(ArnoException.class).hasMessageContaining("size");
    }
}
