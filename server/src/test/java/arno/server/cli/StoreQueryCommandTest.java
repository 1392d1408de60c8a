package arno.server.cli;

import static arno.server.cli.StoreCommandTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import arno.server.cli.StoreCommandTest.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xmlunit.assertj3.XmlAssert;

/** {@code ./arno query}: XQuery over the store, run through {@link arno.server.Main#run}. */
class StoreQueryCommandTest {

    @TempDir
    Path dir;

    String data;

    @BeforeEach
    void load() throws Exception {
        data = dir.resolve("data").toString();
        Result r = run("store", "load", StoreCommandTest.content(dir).toString(), "--data", data);
        assertThat(r.code()).as(r.err()).isZero();
    }

    @Test
    void queryRunsXQueryWithAStoredContextAndStoreDocuments() throws Exception {
        Result count = run("query", "--data", data, "--context", "/ja/v1/article.xml", "count(//p), string(//title)");
        assertThat(count.code()).as(count.err()).isZero();
        assertThat(count.out().strip()).isEqualTo("2\nOne");
        Result doc = run("query", "--data", data, "doc('store:/ja/issue.xml')/issue/@n/string()");
        assertThat(doc.out().strip()).isEqualTo("2");
        // a collection is the documents stored under the path, in path order
        Result all = run("query", "--data", data, "string-join(collection('store:/ja/') ! document-uri(.), ' ')");
        assertThat(all.code()).as(all.err()).isZero();
        assertThat(all.out().strip()).isEqualTo("store:/ja/issue.xml store:/ja/v1/article.xml");
        Path q = Files.writeString(dir.resolve("report.xq"), String.join("\n",
                "declare option saxon:output 'indent=no';",
                "<report>{ for $p in //p return <para>{ string($p) }</para> }</report>"));
        Result file = run("query", "--data", data, "--context", "/ja/v1/article.xml", "-f", q.toString());
        assertThat(file.code()).as(file.err()).isZero();
        XmlAssert.assertThat(file.out()).and("<report><para>x</para><para>y</para></report>").areIdentical();
        Path text = Files.writeString(dir.resolve("text.xq"), String.join("\n",
                "declare namespace output = 'http://www.w3.org/2010/xslt-xquery-serialization';",
                "declare option output:method 'text';",
                "string-join(//p, '+')"));
        Result t = run("query", "--data", data, "--context", "/ja/v1/article.xml", "-f", text.toString());
        assertThat(t.out().strip()).isEqualTo("x+y");
    }

    @Test
    void queryErrorsNameTheQueryLineAndColumn() throws Exception {
        Result r = run("query", "--data", data, "1 +\n  (");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).startsWith("arno: Stylesheet or query does not compile: XPST0003 ").contains("(at query line 2 column");
        // a static error is found before the store is looked for
        Result noStore = run("query", "--data", dir.resolve("none").toString(), "1 +");
        assertThat(noStore.err()).contains("does not compile");
        Path q = Files.writeString(dir.resolve("bad.xq"), "let $x := 1\nreturn $x +");
        Result file = run("query", "--data", data, "-f", q.toString());
        assertThat(file.code()).isEqualTo(1);
        assertThat(file.err()).contains("XPST0003").contains("(at " + q + " line 2 column");
        Result dyn = run("query", "--data", data, "error(xs:QName('err:X1'), 'boom')");
        assertThat(dyn.code()).isEqualTo(1);
        assertThat(dyn.err()).startsWith("arno: the query failed: X1 boom").hasLineCount(1);
        Result noStored = run("query", "--data", data, "doc('store:/nope.xml')");
        assertThat(noStored.code()).isEqualTo(1);
        assertThat(noStored.err()).startsWith("arno: no document store:/nope.xml in store").hasLineCount(1);
        Result noDoc = run("query", "--data", data, "--context", "/missing.xml", ".");
        assertThat(noDoc.code()).isEqualTo(1);
        assertThat(noDoc.err()).startsWith("arno: no document store:/missing.xml in store").hasLineCount(1);
        Result noFile = run("query", "--data", data, "-f", dir.resolve("none.xq").toString());
        assertThat(noFile.code()).isEqualTo(1);
        assertThat(noFile.err()).isEqualTo("arno: query file " + dir.resolve("none.xq") + " does not exist" + System.lineSeparator());
    }

    @Test
    void badUsageExitsWithTwoAndTheUsage() throws Exception {
        Path q = Files.writeString(dir.resolve("q.xq"), "1");
        for (String[] args : List.of(new String[] {"query"}, new String[] {"query", "1", "-f", q.toString()},
                new String[] {"query", "1", "2"}, new String[] {"query", "--bogus", "1"})) {
            Result r = run(args);
            assertThat(r.code()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", args)).startsWith("arno: ").contains("Usage: arno query ");
        }
        Result help = run("query", "--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("--context=URI").contains("-f=FILE").contains("--data=DIR").contains("--map-size=SIZE")
                .contains("Examples:").contains("./arno query --data data");
    }
}
