package arno.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import arno.server.Main;
import arno.store.Store;
import arno.store.StoreOptions;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xmlunit.assertj3.XmlAssert;

/** {@code ./arno store load|export|check}, run as the launcher runs them: {@link Main#run} and its exit status. */
class StoreCommandTest {

    @TempDir
    Path dir;

    record Result(int code, String out, String err) {
    }

    /**
     * Runs a command line with its output captured, and checks that nothing (Saxon's reporter, a
     * stack trace) bypassed the command's own streams to reach System.out or System.err.
     */
    static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ByteArrayOutputStream stray = new ByteArrayOutputStream();
        PrintStream systemOut = System.out;
        PrintStream systemErr = System.err;
        int code;
        try {
            System.setOut(new PrintStream(stray, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(stray, true, StandardCharsets.UTF_8));
            code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        } finally {
            System.setOut(systemOut);
            System.setErr(systemErr);
        }
        assertThat(stray.toString(StandardCharsets.UTF_8)).as("printed around the command's streams").isEmpty();
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * A cluster node's copy changes only by applying the cluster's log: the store commands that would
     * write into it directly refuse, naming the way through the log, and change nothing.
     */
    @Test
    void aClusterNodesCopyIsNotWrittenDirectly() throws Exception {
        Path root = content(dir);
        String data = dir.resolve("data").toString();
        try (arno.store.Store s = arno.store.Store.open(dir.resolve("data/store"), arno.store.StoreOptions.defaults());
             arno.store.WriteTransaction w = s.write()) {
            w.setMark(arno.cluster.Applier.MARK, 7);
            w.commit();
        }
        Path indexes = Files.writeString(dir.resolve("indexes.xml"), "<indexes xmlns='urn:arno:indexes'>"
                + "<index name='n' match='issue' value='@n'/></indexes>");
        Result load = run("store", "load", root.toString(), "--data", data);
        Result index = run("store", "index", "add", indexes.toString(), "--data", data);
        Result resources = run("store", "load", "--resources", root.toString(), "--data", data);
        for (Result r : List.of(load, index, resources)) {
            assertThat(r.code()).as(r.err()).isEqualTo(arno.xml.ErrorCode.CONFLICT.exitStatus());
            assertThat(r.err()).contains("is a cluster node's copy, which changes only by applying the cluster's log");
        }
        assertThat(load.err()).contains("loading documents into it would change this copy alone");
        assertThat(index.err()).contains("changing its index definitions would change this copy alone")
                .contains("./arno store index add|remove while the node runs");
        assertThat(resources.err()).contains("loading resources into it");
        try (arno.store.Store s = arno.store.Store.open(dir.resolve("data/store"), arno.store.StoreOptions.defaults());
             arno.store.Snapshot v = s.read()) {
            assertThat(v.uris("/")).isEmpty();
            assertThat(v.indexes().indexes()).isEmpty();
            assertThat(v.mark(arno.cluster.Applier.MARK)).hasValue(7);
        }
    }

    /** A content folder: two XML files in a tree, a text file and a hidden folder that are not loaded. */
    static Path content(Path dir) throws Exception {
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
        Path root = content(dir);
        Path single = Files.writeString(dir.resolve("single.xml"), "<single/>");
        String data = dir.resolve("data").toString();
        Result r = run("store", "load", root.toString(), single.toString(), "--data", data, "--prefix", "/journals");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("arno: loaded 3 document(s) into " + dir.resolve("data/store"));
        Result e = run("store", "export", "/journals/ja/v1/article.xml", "--data", data);
        assertThat(e.code()).as(e.err()).isZero();
        XmlAssert.assertThat(e.out()).and("<article><title>One</title><p>x</p><p>y</p></article>").areIdentical();
        XmlAssert.assertThat(run("store", "export", "/journals/single.xml", "--data", data).out()).and("<single/>").areIdentical();
        XmlAssert.assertThat(run("store", "export", "/journals/ja/issue.xml", "--data", data).out()).and("<issue n='2'/>")
                .areIdentical();
        Result missing = run("store", "export", "/journals/.git/config.xml", "--data", data);
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.err()).startsWith("arno: no document store:/journals/.git/config.xml in store").hasLineCount(1);
        Result check = run("store", "check", "--data", data);
        assertThat(check.code()).as(check.err()).isZero();
        assertThat(check.out()).contains("3 document(s), version 1").contains(": OK");
    }

    /** check also checks the full-text index beside the store (fulltext's CheckTest checks what it compares). */
    @Test
    void checkSaysHowTheFullTextIndexStands() throws Exception {
        Path data = dir.resolve("data");
        try (Store s = Store.open(data.resolve("store"), StoreOptions.defaults().mapSize(64L << 20));
             arno.store.WriteTransaction w = s.write()) {
            w.put(arno.fulltext.FulltextConfig.URI, arno.fulltext.FulltextConfig.defaultXml());
            w.commit();
        }
        Result none = run("store", "check", "--data", data.toString());
        assertThat(none.code()).as(none.err()).isZero();
        assertThat(none.out()).contains("full-text index").contains("the next start builds it").contains(": OK");
        Files.createDirectories(data.resolve("fulltext"));
        Files.writeString(data.resolve("fulltext/segments_1"), "not an index");
        Result damaged = run("store", "check", "--data", data.toString());
        assertThat(damaged.code()).isEqualTo(1);
        assertThat(damaged.out()).contains("cannot be read").contains("1 problem(s)");
    }

    @Test
    void exportWritesAFileAndAFailedExportLeavesItAsItWas() throws Exception {
        String data = dir.resolve("data").toString();
        Files.writeString(dir.resolve("a.xml"), "<a>caf\u00e9</a>");
        assertThat(run("store", "load", dir.resolve("a.xml").toString(), "--data", data).code()).isZero();
        Path out = dir.resolve("out.xml");
        Result r = run("store", "export", "/a.xml", "--out", out.toString(), "--data", data);
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).isEmpty();
        assertThat(Files.readString(out, StandardCharsets.UTF_8)).startsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
        XmlAssert.assertThat(Files.readString(out, StandardCharsets.UTF_8)).and("<a>caf\u00e9</a>").areSimilar();
        Result missing = run("store", "export", "/b.xml", "--out", out.toString(), "--data", data);
        assertThat(missing.code()).isEqualTo(1);
        XmlAssert.assertThat(Files.readString(out, StandardCharsets.UTF_8)).and("<a>caf\u00e9</a>").areSimilar();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith(".arno-export"));
        }
    }

    @Test
    void aBadFileIsReportedWithItsLocationAndTheOthersAreLoaded() throws Exception {
        Path root = content(dir);
        Path broken = Files.writeString(root.resolve("ja/broken.xml"), "<a>\n<b></a>");
        String data = dir.resolve("data").toString();
        Result r = run("store", "load", root.toString(), "--data", data, "--batch", "1");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("arno: " + broken.toUri() + " is not well-formed XML: ")
                .contains("; nothing was stored (at " + broken.toUri() + " line 2 column")
                .contains("must be terminated by the matching end-tag \"</b>\"; nothing was stored")
                .contains("loaded 2 document(s)").contains("; 1 failed");
        Result check = run("store", "check", "--data", data);
        assertThat(check.code()).isZero();
        assertThat(check.out()).contains("2 document(s)");
    }

    @Test
    void aJatsArticleWithItsDoctypeIsLoadedAndAnEntityBombIsNot() throws Exception {
        Path in = Files.createDirectories(dir.resolve("in"));
        Files.writeString(in.resolve("article.xml"), "<?xml version=\"1.0\"?>\n<!DOCTYPE article PUBLIC \"-//NLM//DTD JATS"
                + " (Z39.96) Journal Archiving and Interchange DTD v1.2 20190208//EN\" \"JATS-archivearticle1.dtd\">\n"
                + "<article><front><article-meta><title-group><article-title>T</article-title></title-group>"
                + "</article-meta></front></article>");
        Files.writeString(in.resolve("lol.xml"), "<!DOCTYPE a [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;"
                + "&a;&a;&a;\"><!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\"><!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\">"
                + "<!ENTITY e \"&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;\">]><a>&e;</a>");
        String data = dir.resolve("data").toString();
        Result r = run("store", "load", in.toString(), "--data", data);
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("lol.xml was refused: entity e would need more than 10000 entity expansions")
                .contains("loaded 1 document(s)").contains("; 1 failed");
        Result q = run("query", "--data", data, "--context", "/article.xml", "string(//article-title)");
        assertThat(q.code()).as(q.err()).isZero();
        assertThat(q.out().strip()).isEqualTo("T");
    }

    @Test
    void checkExportAndQueryNeverCreateAStore() {
        Path missing = dir.resolve("no/such/folder");
        for (String[] args : List.of(new String[] {"store", "check", "--data", missing.toString()},
                new String[] {"store", "export", "/a.xml", "--data", missing.toString()},
                new String[] {"query", "--data", missing.toString(), "1 + 1"})) {
            Result r = run(args);
            assertThat(r.code()).as(String.join(" ", args)).isEqualTo(1);
            assertThat(r.err()).isEqualTo("arno: no store in " + missing.resolve("store")
                    + "; load content with './arno store load PATH --data " + missing + "'" + System.lineSeparator());
            assertThat(r.out()).isEmpty();
        }
        assertThat(dir.resolve("no")).doesNotExist();
    }

    @Test
    void aStoreHeldByAnotherProcessIsOneLineSayingWhatToDo() throws Exception {
        String data = dir.resolve("data").toString();
        Files.writeString(dir.resolve("a.xml"), "<a/>");
        assertThat(run("store", "load", dir.resolve("a.xml").toString(), "--data", data).code()).isZero();
        // Another JVM takes the store's lock file as a running server would, and holds it until told to stop.
        Path holder = Files.writeString(dir.resolve("Holder.java"), String.join("\n",
                "import java.nio.channels.FileChannel;",
                "import java.nio.file.*;",
                "public class Holder {",
                "  public static void main(String[] a) throws Exception {",
                "    try (FileChannel c = FileChannel.open(Path.of(a[0]), StandardOpenOption.WRITE); var lock = c.lock()) {",
                "      System.out.println(\"locked\");",
                "      System.in.read();",
                "    }",
                "  }",
                "}"));
        String java = ProcessHandle.current().info().command().orElse("java");
        Process child = new ProcessBuilder(java, holder.toString(), dir.resolve("data/store/arno-store.lock").toString())
                .redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(out.readLine()).isEqualTo("locked");
            for (String[] args : List.of(new String[] {"store", "check", "--data", data},
                    new String[] {"store", "load", dir.resolve("a.xml").toString(), "--data", data})) {
                Result r = run(args);
                assertThat(r.code()).as(String.join(" ", args)).isEqualTo(1);
                assertThat(r.err()).startsWith("arno: store " + dir.resolve("data/store") + " is in use by another process")
                        .contains("probably a running './arno serve' or a Tomcat serving Arno's WAR; stop it (or undeploy the WAR) first").hasLineCount(1);
            }
        } finally {
            child.getOutputStream().close();
            if (!child.waitFor(20, TimeUnit.SECONDS)) child.destroyForcibly();
        }
        assertThat(run("store", "check", "--data", data).code()).isZero();
    }

    @Test
    void theMapSizeComesFromTheFlagOverTheConfiguration() throws Exception {
        String data = dir.resolve("data").toString();
        Files.writeString(dir.resolve("a.xml"), "<a>" + "x".repeat(3 << 20) + "</a>");
        Result small = run("store", "load", dir.resolve("a.xml").toString(), "--data", data, "--map-size", "2M");
        assertThat(small.code()).isEqualTo(1);
        assertThat(small.err()).contains("the store is full").contains("--map-size");
        assertThat(run("store", "load", dir.resolve("a.xml").toString(), "--data", data, "--map-size", "64M").code()).isZero();
        Result tiny = run("store", "check", "--data", data, "--map-size", "1K");
        assertThat(tiny.code()).isEqualTo(1);
        assertThat(tiny.err()).isEqualTo("arno: store map size must be at least 1M, not 1024" + System.lineSeparator());
    }

    @Test
    void badUsageExitsWithTwoAndTheCommandsUsage() throws Exception {
        for (String[] args : List.of(new String[] {"store"}, new String[] {"store", "frob"},
                new String[] {"store", "load"}, new String[] {"store", "load", "x", "--bogus", "1"},
                new String[] {"store", "load", "x", "--prefix", "nope"}, new String[] {"store", "load", "x", "--batch", "0"},
                new String[] {"store", "load", "x", "--map-size", "lots"}, new String[] {"store", "check", "extra"},
                new String[] {"store", "export"})) {
            Result r = run(args);
            String command = args.length > 1 && !args[1].equals("frob") ? "store " + args[1] : "store";
            assertThat(r.code()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", args)).startsWith("arno: ").contains("Usage: arno " + command + " ");
        }
        assertThat(run("store", "load", "x", "--prefix", "nope").err()).startsWith("arno: --prefix must start with '/', was 'nope'");
        Result missing = run("store", "load", dir.resolve("nothing-here").toString(), "--data", dir.resolve("data").toString());
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.err()).isEqualTo("arno: cannot read " + dir.resolve("nothing-here") + ": no such file or folder"
                + System.lineSeparator());
        assertThat(dir.resolve("data")).doesNotExist();
    }

    @Test
    void everyCommandHasHelpWithItsOptionsAndAnExample() {
        Result store = run("store", "--help");
        assertThat(store.code()).isZero();
        assertThat(store.out()).contains("load").contains("export").contains("check").contains("Examples:");
        for (String sub : List.of("load", "export", "check")) {
            Result r = run("store", sub, "--help");
            assertThat(r.code()).as(sub).isZero();
            assertThat(r.out()).as(sub).contains("Usage: arno store " + sub).contains("--data=DIR").contains("--config=FILE")
                    .contains("--map-size=SIZE").contains("Example:").contains("./arno store " + sub);
        }
        assertThat(run("store", "load", "--help").out()).contains("--prefix=URI").contains("--batch=N").contains("default: 1000");
        assertThat(run("store", "export", "--help").out()).contains("--out=FILE");
    }

    @Test
    void theStoreOptionsFollowTheConfiguration() {
        StoreOptions o = StoreCommand.Opening.options(arno.server.config.Config.defaults(dir).toBuilder().build());
        assertThat(o.mapSize()).isEqualTo(16L << 30);
        assertThat(o.xmlPolicy().limits()).isEqualTo(arno.xml.XmlPolicy.Limits.DEFAULT);
        try (Store s = Store.open(dir.resolve("s"), o.mapSize(1L << 20))) {
            assertThat(s.options().mapSize()).isEqualTo(1L << 20);
        }
    }
}
