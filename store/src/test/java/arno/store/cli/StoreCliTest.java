package arno.store.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xmlunit.assertj3.XmlAssert;

/** The command line, called as the launcher calls it: run(args, out, err) and its exit code. */
public class StoreCliTest {

    @TempDir
    Path dir;

    public record Result(int code, String out, String err) {
    }

    public static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = StoreCli.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private Path content() throws Exception {
        Path root = dir.resolve("content");
        Files.createDirectories(root.resolve("ja/v1"));
        Files.createDirectories(root.resolve(".git"));
        Files.writeString(root.resolve("ja/v1/article.xml"), "<article><title>One</title><p>x</p><p>y</p></article>");
        Files.writeString(root.resolve("ja/issue.xml"), "<issue n='2'/>");
        Files.writeString(root.resolve("ja/notes.txt"), "not XML, not loaded");
        Files.writeString(root.resolve(".git/config.xml"), "<hidden/>");
        return root;
    }

    @Test
    void loadGivesFolderFilesTheirRelativePathUnderThePrefix() throws Exception {
        Path root = content();
        Path single = Files.writeString(dir.resolve("single.xml"), "<single/>");
        String data = dir.resolve("data").toString();
        Result r = run("store", "load", root.toString(), single.toString(), "--data", data, "--prefix", "/journals");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("loaded 3 document(s)");
        Result e = run("store", "export", "/journals/ja/v1/article.xml", "--data", data);
        assertThat(e.code()).isZero();
        XmlAssert.assertThat(e.out()).and("<article><title>One</title><p>x</p><p>y</p></article>").areSimilar();
        assertThat(run("store", "export", "/journals/single.xml", "--data", data).out()).contains("<single/>");
        assertThat(run("store", "export", "/journals/ja/issue.xml", "--data", data).code()).isZero();
        Result missing = run("store", "export", "/journals/.git/config.xml", "--data", data);
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.err()).contains("no document store:/journals/.git/config.xml");
        Result check = run("store", "check", "--data", data);
        assertThat(check.code()).isZero();
        assertThat(check.out()).contains("3 document(s), version 1").contains(": OK");
    }

    @Test
    void aBadFileIsReportedWithLineAndColumnAndTheOthersAreLoaded() throws Exception {
        Path root = content();
        Files.writeString(root.resolve("ja/broken.xml"), "<a>\n<b></a>");
        String data = dir.resolve("data").toString();
        Result r = run("store", "load", root.toString(), "--data", data, "--batch", "1");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("broken.xml:2:").contains("nothing was stored").contains("loaded 2 document(s)")
                .contains("1 failed");
        Result check = run("store", "check", "--data", data);
        assertThat(check.out()).contains("2 document(s)");
        assertThat(check.code()).isZero();
    }

    @Test
    void queryRunsXQueryWithAStoredContextAndStoreDocuments() throws Exception {
        Path root = content();
        String data = dir.resolve("data").toString();
        assertThat(run("store", "load", root.toString(), "--data", data).code()).isZero();
        Result count = run("query", "--data", data, "--context", "/ja/v1/article.xml", "count(//p), string(//title)");
        assertThat(count.code()).as(count.err()).isZero();
        assertThat(count.out().strip()).isEqualTo("2\nOne");
        Result doc = run("query", "--data", data, "doc('store:/ja/issue.xml')/issue/@n/string()");
        assertThat(doc.out().strip()).isEqualTo("2");
        Path q = Files.writeString(dir.resolve("report.xq"), String.join("\n",
                "declare option saxon:output 'indent=no';",
                "<report>{ for $p in //p return <para>{ string($p) }</para> }</report>"));
        Result file = run("query", "--data", data, "--context", "/ja/v1/article.xml", "-f", q.toString());
        assertThat(file.code()).as(file.err()).isZero();
        XmlAssert.assertThat(file.out()).and("<report><para>x</para><para>y</para></report>").areSimilar();
        Path text = Files.writeString(dir.resolve("text.xq"), String.join("\n",
                "declare namespace output = 'http://www.w3.org/2010/xslt-xquery-serialization';",
                "declare option output:method 'text';",
                "string-join(//p, '+')"));
        Result t = run("query", "--data", data, "--context", "/ja/v1/article.xml", "-f", text.toString());
        assertThat(t.out().strip()).isEqualTo("x+y");
    }

    @Test
    void queryErrorsNameLineAndColumn() throws Exception {
        String data = dir.resolve("data").toString();
        Result r = run("query", "--data", data, "1 +\n  (");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("line 2, column");
        Result dyn = run("query", "--data", data, "error(xs:QName('err:X1'), 'boom')");
        assertThat(dyn.code()).isEqualTo(1);
        assertThat(dyn.err()).contains("X1").contains("boom");
        Result noDoc = run("query", "--data", data, "--context", "/missing.xml", ".");
        assertThat(noDoc.code()).isEqualTo(1);
        assertThat(noDoc.err()).contains("no document store:/missing.xml");
    }

    @Test
    void badUsageExitsWithTwoAndTheUsage() {
        for (String[] args : List.of(new String[] {}, new String[] {"store"}, new String[] {"store", "frob"},
                new String[] {"store", "load"}, new String[] {"store", "load", "x", "--bogus", "1"},
                new String[] {"store", "load", "x", "--prefix", "nope"}, new String[] {"query"},
                new String[] {"store", "load", "x", "--map-size", "lots"})) {
            Result r = run(args);
            assertThat(r.code()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(r.err()).contains("usage: arno store load");
        }
        Result missing = run("store", "load", dir.resolve("nothing-here").toString(), "--data", dir.toString());
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.err()).contains("no such file or folder");
    }

    @Test
    void progressRedrawsOnATerminalAndLogsLinesOtherwise() {
        long[] now = {0};
        ByteArrayOutputStream tty = new ByteArrayOutputStream();
        Progress p = new Progress(new PrintStream(tty, true, StandardCharsets.UTF_8), true, () -> now[0], 2, 2048);
        p.file("/a.xml");
        p.bytes(1024);
        now[0] = Progress.TTY_INTERVAL_NANOS + 1;
        p.bytes(0);
        p.done(true);
        now[0] = 2 * Progress.TTY_INTERVAL_NANOS + 2;
        p.file("/b.xml");
        assertThat(tty.toString(StandardCharsets.UTF_8)).contains("[store]  50% 0/2 files  1.0 KB")
                .contains("\r").contains("1/2 files").contains("/b.xml");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        List<String> lines = new ArrayList<>();
        now[0] = 0;
        Progress l = new Progress(new PrintStream(log, true, StandardCharsets.UTF_8), false, () -> now[0], 1, 0);
        l.file("/c.xml");
        now[0] = Progress.TTY_INTERVAL_NANOS * 2;
        l.bytes(10);
        assertThat(log.toString(StandardCharsets.UTF_8)).isEmpty();
        now[0] = Progress.LOG_INTERVAL_NANOS + 1;
        l.bytes(10);
        lines.addAll(log.toString(StandardCharsets.UTF_8).lines().toList());
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).doesNotContain("\r").contains("0/1 files  20 B");
    }
}
