package arno.server.cli;

import static arno.server.cli.StoreCommandTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import arno.server.cli.StoreCommandTest.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xmlunit.assertj3.XmlAssert;

/**
 * {@code ./arno store index add|remove|list}, {@code ./arno store paths} and the XPath functions
 * {@code store:lookup} / {@code store:range} in {@code ./arno query}, through {@link arno.server.Main#run}.
 */
class StoreIndexCommandTest {

    static final String ENTRY = "<entry xmlns='http://www.w3.org/2005/Atom' xmlns:prism='http://prismstandard.org/namespaces/basic/2.0/'>"
            + "<title>%s</title><category scheme='urn:arno:kind' term='%s'/><category scheme='urn:arno:keyword' term='%s'/>"
            + "<prism:doi>%s</prism:doi><prism:number>%d</prism:number></entry>";

    static final String CONFIG = """
            <indexes xmlns="urn:arno:indexes" xmlns:atom="http://www.w3.org/2005/Atom"
                     xmlns:prism="http://prismstandard.org/namespaces/basic/2.0/">
              <index name="doi" match="atom:entry" value="prism:doi" normalise="case"/>
              <index name="category" match="atom:entry/atom:category" key="@scheme" value="@term"/>
              <index name="issue" type="number" match="atom:entry" value="prism:number"/>
            </indexes>
            """;

    @TempDir
    Path dir;

    String data;

    @BeforeEach
    void load() throws Exception {
        Path content = Files.createDirectories(dir.resolve("content"));
        Files.writeString(content.resolve("a.atom"), ENTRY.formatted("A", "article", "article", "10.1/A", 1));
        Files.writeString(content.resolve("b.atom"), ENTRY.formatted("B", "article", "physics", "10.1/b", 2));
        Files.writeString(content.resolve("c.atom"), ENTRY.formatted("C", "issue", "physics", "10.1/c", 3));
        data = dir.resolve("data").toString();
        Result r = run("store", "load", content.toString(), "--data", data);
        assertThat(r.code()).as(r.err()).isZero();
    }

    @Test
    void addBuildsTheIndexesThatQueriesThenUse() throws Exception {
        Path config = Files.writeString(dir.resolve("indexes.xml"), CONFIG);
        Result add = run("store", "index", "add", config.toString(), "--data", data);
        assertThat(add.code()).as(add.err()).isZero();
        assertThat(add.err()).contains("arno: 3 index(es) configured: doi, category, issue; 4 document(s) indexed");

        Result doi = run("query", "--data", data, "store:lookup('doi', '10.1/a') ! base-uri(root())");
        assertThat(doi.code()).as(doi.err()).isZero();
        assertThat(doi.out().strip()).isEqualTo("store:/a.atom");
        // "an atom:category whose scheme is S and term is T": one lookup, not a match on either alone
        Result cat = run("query", "--data", data,
                "string-join(store:lookup('category', 'urn:arno:keyword', 'physics') ! ../*:title, ',')");
        assertThat(cat.out().strip()).isEqualTo("B,C");
        Result kind = run("query", "--data", data,
                "string-join(store:lookup('category', 'urn:arno:kind', 'physics') ! ../*:title, ',')");
        assertThat(kind.out().strip()).isEmpty();
        Result range = run("query", "--data", data, "string-join(store:range('issue', 2, ())/*:title, ',')");
        assertThat(range.out().strip()).isEqualTo("B,C");
        Result element = run("query", "--data", data, "store:lookup('doi', '10.1/C')/*:title");
        XmlAssert.assertThat(element.out()).and("<title xmlns='http://www.w3.org/2005/Atom'>C</title>").areIdentical();

        Result list = run("store", "index", "list", "--data", data);
        assertThat(list.code()).isZero();
        XmlAssert.assertThat(list.out()).and(CONFIG).ignoreWhitespace().areSimilar();
        Result paths = run("store", "paths", "--data", data);
        assertThat(paths.out()).contains("elements  documents  path")
                .containsPattern("\\s6\\s+3  /entry/category\\R")
                .containsPattern("\\s3\\s+3  /entry/prism:doi\\R");
        Result check = run("store", "check", "--data", data);
        assertThat(check.code()).as(check.out()).isZero();

        Result remove = run("store", "index", "remove", "doi", "--data", data);
        assertThat(remove.code()).as(remove.err()).isZero();
        Result gone = run("query", "--data", data, "store:lookup('doi', '10.1/a')");
        assertThat(gone.code()).isEqualTo(1);
        assertThat(gone.err()).startsWith("arno: there is no index named 'doi'; the store's indexes are category, issue")
                .hasLineCount(1);
    }

    @Test
    void mistakesAreOneLineAndChangeNothing() throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.xml"),
                "<indexes xmlns='urn:arno:indexes'>\n  <index name='x' match='a[1]' value='b'/>\n</indexes>");
        Result r = run("store", "index", "add", bad.toString(), "--data", data);
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).startsWith("arno: " + bad + " is not valid:").contains("line 2").hasLineCount(1);
        Result prefix = run("store", "index", "add", Files.writeString(dir.resolve("p.xml"),
                "<indexes xmlns='urn:arno:indexes'><index name='x' match='p:a' value='b'/></indexes>").toString(), "--data", data);
        assertThat(prefix.code()).isEqualTo(1);
        assertThat(prefix.err()).contains("prefix 'p' is not declared").hasLineCount(1);
        Result list = run("store", "index", "list", "--data", data);
        XmlAssert.assertThat(list.out()).and("<indexes xmlns='urn:arno:indexes'/>").ignoreWhitespace().areSimilar();
        Result none = run("store", "index", "remove", "nope", "--data", data);
        assertThat(none.code()).isEqualTo(1);
        assertThat(none.err()).isEqualTo("arno: there is no index named 'nope'; the store has no indexes" + System.lineSeparator());
        Result noIndex = run("query", "--data", data, "store:lookup('doi', 'x')");
        assertThat(noIndex.code()).isEqualTo(1);
        assertThat(noIndex.err()).startsWith("arno: there is no index named 'doi'; the store has no indexes").hasLineCount(1);
        Result usage = run("store", "index", "--data", data);
        assertThat(usage.code()).isEqualTo(2);
    }
}
