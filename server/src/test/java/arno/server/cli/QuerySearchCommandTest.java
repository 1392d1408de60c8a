package arno.server.cli;

import static arno.server.cli.StoreCommandTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import arno.server.cli.StoreCommandTest.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code store:search} in {@code ./arno query}, its {@code --explain} and {@code --timeout}, through
 * {@link arno.server.Main#run}: a store of 300 entries with the demo's kind of indexes.
 */
class QuerySearchCommandTest {

    static final String NS = "declare namespace atom = 'http://www.w3.org/2005/Atom';"
            + " declare namespace prism = 'http://prismstandard.org/namespaces/basic/2.0/';";

    @TempDir
    Path dir;

    String data;

    @BeforeEach
    void load() throws Exception {
        Path content = Files.createDirectories(dir.resolve("content/j"));
        for (int i = 0; i < 300; i++) {
            Files.writeString(content.resolve("a" + i + ".atom"), StoreIndexCommandTest.ENTRY.formatted("T" + i, "article",
                    i % 3 == 0 ? "physics" : "maths", "10.1/" + i, i % 10));
        }
        data = dir.resolve("data").toString();
        Result r = run("store", "load", dir.resolve("content").toString(), "--data", data);
        assertThat(r.code()).as(r.err()).isZero();
        Path config = Files.writeString(dir.resolve("indexes.xml"), StoreIndexCommandTest.CONFIG);
        Result add = run("store", "index", "add", config.toString(), "--data", data);
        assertThat(add.code()).as(add.err()).isZero();
    }

    @Test
    void explainPrintsEachSearchsPlanOnStderrAndTheResultsGoToStdout() {
        String condition = "atom:entry[atom:category[@scheme = 'urn:arno:keyword'][@term = 'physics']][prism:number = 3]";
        Result r = run("query", "--data", data, "--explain", NS + " string-join(store:search('/j/', \""
                + condition + "\") ! atom:entry/atom:title, ',')");
        assertThat(r.code()).as(r.err()).isZero();
        // entries i with i % 3 == 0 and i % 10 == 3: 3, 33, 63, …, 273 (in path order: a123 before a153 …)
        assertThat(r.out().strip().split(",")).containsExactlyInAnyOrder("T3", "T33", "T63", "T93", "T123", "T153",
                "T183", "T213", "T243", "T273");
        assertThat(r.err()).contains("search under /j/: " + condition)
                .contains("1. drive     /atom:entry/prism:number = 3  by issue = '3'  (30 entries, 30 documents)")
                .contains("2. intersect /atom:entry/atom:category[@scheme = 'urn:arno:keyword'][@term = 'physics']"
                        + "  by category key 'urn:arno:keyword' = 'physics'  (100 entries, 100 documents)")
                .contains("every candidate is verified against the whole condition")
                .contains("done: 10 candidates examined, 10 results; planning ");
        // without --explain, nothing on stderr
        Result quiet = run("query", "--data", data, NS + " count(store:search('/j/', \"" + condition + "\"))");
        assertThat(quiet.out().strip()).isEqualTo("10");
        assertThat(quiet.err()).isEmpty();
        // results are documents of the query as doc() gives them
        Result uri = run("query", "--data", data, NS + " store:search('/j/', \"" + condition + "\")[1]"
                + " ! (document-uri(.), doc(document-uri(.)) is .)");
        assertThat(uri.out().strip()).isEqualTo("store:/j/a123.atom\ntrue");
        // a condition outside the subset: one line with its position
        Result bad = run("query", "--data", data, NS + " store:search('/j/', 'atom:entry[position() = 1]')");
        assertThat(bad.code()).isEqualTo(1);
        assertThat(bad.err()).startsWith("arno: the search condition \"atom:entry[position() = 1]\" has the function"
                + " position() at line 1 column 12").hasLineCount(1);
    }

    @Test
    void aTimeoutStopsTheQueryAndSaysWhatWasDone() {
        Result r = run("query", "--data", data, "--timeout", "1ms",
                NS + " for $e in collection('store:/j/') return ($e//atom:title, for $i in 1 to 50000 return $i)[1]");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).startsWith("arno: the query ran past its time limit of 0.001s and was stopped: ")
                .contains("documents examined").contains("characters of results written").hasLineCount(1);
        // the store was released: the next command opens it
        Result again = run("query", "--data", data, "count(collection('store:/j/'))");
        assertThat(again.out().strip()).isEqualTo("300");
        Result usage = run("query", "--data", data, "--timeout", "soon", "1");
        assertThat(usage.code()).isEqualTo(2);
        assertThat(usage.err()).contains("--timeout needs a duration such as 10s");
    }
}
