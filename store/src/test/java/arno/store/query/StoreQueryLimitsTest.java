package arno.store.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.WriteTransaction;
import arno.xml.Access;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.FileRoots;
import arno.xml.Outbound;
import arno.xml.XmlPolicy;

/**
 * What a query may read and how long it may run. Read: a query compiled with a confined
 * {@link Access} (the console's: no folders, no private addresses) reads the store and nothing of
 * the machine: no file, no environment variable, no loopback URL; one compiled with the owner's
 * access ({@code ./arno query}) reads local files. Run: the time limit and the brake stop loops
 * that read no document and write nothing (a sort of a long range, an {@code order by}, recursion),
 * with a clock the test moves, and the checkpoints that see them change no result.
 */
class StoreQueryLimitsTest {

    @TempDir
    Path dir;

    Store store;

    @BeforeEach
    void fill() {
        store = Store.open(dir.resolve("store"), StoreOptions.defaults().mapSize(64L << 20));
        try (WriteTransaction w = store.write()) {
            for (int i = 0; i < 3; i++) {
                w.put("/d/" + i + ".xml", ("<doc n='" + i + "'/>").getBytes(StandardCharsets.UTF_8));
            }
            w.commit();
        }
    }

    @AfterEach
    void close() {
        store.close();
    }

    /** The console's access: no folders, the default outbound policy (public addresses only). */
    static Access confined() {
        return new Access(FileRoots.none(), FileRoots.none(), new Outbound(Outbound.Policy.DEFAULT), XmlPolicy.DEFAULT);
    }

    String run(StoreQuery q) {
        StringWriter out = new StringWriter();
        q.run(store, null, out);
        return out.toString().strip().replace('\n', ' ');
    }

    String confinedRun(String query) {
        return run(StoreQuery.compile(query, dir.toUri(), "query", confined()));
    }

    // ---- What a query reads

    @Test
    void aConfinedQueryReadsTheStoreAndNoFile() throws Exception {
        Path secret = Files.writeString(dir.resolve("accounts"), "root:secret");
        assertThat(confinedRun("string(doc('store:/d/1.xml')/doc/@n), count(collection('store:/d/'))")).isEqualTo("1 3");
        for (String q : new String[] {
                "unparsed-text('" + secret.toUri() + "')",
                "unparsed-text('file:///etc/passwd')",
                "unparsed-text-lines('accounts')",
                "json-doc('file:///etc/passwd')",
                "doc('" + dir.resolve("x.xml").toUri() + "')",
                "collection('" + dir.toUri() + "')"}) {
            assertThatThrownBy(() -> confinedRun(q)).as(q).isInstanceOf(ArnoException.class)
                    .hasMessageContaining("outside the allowed folders (none are configured)");
        }
        assertThat(confinedRun("unparsed-text-available('" + secret.toUri() + "'), doc-available('file:///etc/hostname')"))
                .isEqualTo("false false");
    }

    @Test
    void aConfinedQueryCompilesNoFileIn() {
        // a stylesheet for fn:transform, an XQuery module: code comes from the same (empty) folders
        assertThatThrownBy(() -> confinedRun("transform(map { 'stylesheet-location': 'file:///etc/passwd',"
                + " 'source-node': <a/> })?output")).hasMessageContaining("outside the allowed folders");
        assertThatThrownBy(() -> StoreQuery.compile("import module namespace m = 'urn:m' at 'file:///etc/m.xq'; 1",
                dir.toUri(), "query", confined())).hasMessageContaining("outside the allowed folders");
    }

    @Test
    void aConfinedQueryWritesNoFile() {
        Path target = dir.resolve("written.xml");
        String xsl = "<xsl:stylesheet version='3.0' xmlns:xsl='http://www.w3.org/1999/XSL/Transform'>"
                + "<xsl:template match='/'><xsl:result-document href='" + target.toUri() + "'><pwned/></xsl:result-document>"
                + "<done/></xsl:template></xsl:stylesheet>";
        // Access turns Java calls off, and with them Saxon compiles no xsl:result-document
        assertThatThrownBy(() -> confinedRun("transform(map { 'stylesheet-text': \"" + xsl + "\","
                + " 'source-node': document { <a/> } })?output")).hasMessageContaining("xsl:result-document is disabled");
        assertThat(target).doesNotExist();
    }

    @Test
    void aConfinedQuerySeesNoEnvironmentAndNoPrivateAddress() {
        assertThat(System.getenv("PATH")).as("the test needs a variable to hide").isNotNull();
        // (with Java calls off, Saxon answers every name with an empty string)
        assertThat(confinedRun("count(available-environment-variables()), string(environment-variable('PATH')) = ''"))
                .isEqualTo("0 true");
        for (String url : new String[] {"http://127.0.0.1:9/", "http://localhost:9/x.xml", "http://[::1]:9/", "http://10.1.2.3/",
                "http://169.254.169.254/latest/meta-data/"}) {
            assertThatThrownBy(() -> confinedRun("doc('" + url + "')")).as(url)
                    .satisfies(e -> assertThat(ArnoException.find(e).code()).isEqualTo(ErrorCode.URI_REFUSED));
            assertThatThrownBy(() -> confinedRun("unparsed-text('" + url + "')")).as(url)
                    .satisfies(e -> assertThat(ArnoException.find(e).code()).isEqualTo(ErrorCode.URI_REFUSED));
        }
    }

    @Test
    void theOwnersQueryReadsLocalFiles() throws Exception {
        Path list = Files.writeString(dir.resolve("list.txt"), "a\nb\n");
        Files.writeString(dir.resolve("x.xml"), "<x>1</x>");
        StoreQuery q = StoreQuery.compile("count(unparsed-text-lines('" + list.toUri() + "')), doc('x.xml')/x/string(),"
                + " string(doc('store:/d/2.xml')/doc/@n)", dir.toUri(), "query", XmlPolicy.DEFAULT);
        assertThat(run(q)).isEqualTo("2 1 2");
    }

    // ---- How long it runs

    /** A clock that moves one second at each reading. */
    static final class Ticking implements java.util.function.LongSupplier {
        long now;

        @Override
        public long getAsLong() {
            now += 1_000_000_000L;
            return now;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "sort(1 to 20000000)[1]",
        "count(for $i in 1 to 20000000 order by -$i return $i)",
        "let $n := 20000000 return count(reverse(1 to $n))",
        "sum((1 to 2000000000) ! (. mod 7))",
        "for $a in 1 to 2 let $x := sort(1 to 20000000) return $x[1]",
        "declare variable $v := sort(1 to 20000000); $v[1]",
        "declare function local:f($n) { if ($n = 0) then 0 else local:f($n - 1) }; local:f(2000000000)",
        "declare function local:g() { local:g() }; local:g()",
        "declare function local:h($n, $acc) { if ($n = 0) then count($acc) else local:h($n - 1, ($acc, $n)) };"
                + " local:h(100000000, ())",
        "count(for $a in collection('store:/d/'), $i in 1 to 100000000 return $i)"
    })
    void aRunawayQueryIsStoppedByTheTimeLimit(String query) {
        StoreQuery.Reporting r = new StoreQuery.Reporting(null, false, false, false, Duration.ofSeconds(5), new Ticking());
        StoreQuery q = StoreQuery.compile(query, dir.toUri(), "query", confined());
        assertThatThrownBy(() -> q.run(store, null, new StringWriter(), r))
                .isInstanceOf(ArnoException.class)
                .satisfies(e -> assertThat(((ArnoException) e).code()).isEqualTo(ErrorCode.QUERY_TIMEOUT))
                .hasMessageStartingWith("the query ran past its time limit of 5s and was stopped");
        // the snapshot was released
        assertThat(store.openSnapshots()).isZero();
    }

    @Test
    void theBrakeStopsARunWithItsOwnError() {
        AtomicInteger asked = new AtomicInteger();
        ArnoException full = ErrorCode.BUSY.error("the heap is full");
        StoreQuery.Reporting r = new StoreQuery.Reporting(null, false, false, false, null, System::nanoTime,
                () -> asked.incrementAndGet() < 3 ? null : full);
        StoreQuery q = StoreQuery.compile("sort(1 to 20000000)[1]", dir.toUri(), "query", confined());
        assertThatThrownBy(() -> q.run(store, null, new StringWriter(), r)).isInstanceOf(ArnoException.class)
                .hasMessage(full.getMessage());
        // a query that passes a checkpoint too rarely to be asked runs to its end
        asked.set(0);
        StringWriter out = new StringWriter();
        StoreQuery.compile("sum(1 to 100)", dir.toUri(), "query", confined()).run(store, null, out, r);
        assertThat(out.toString().strip()).isEqualTo("5050");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "count(1 to 100000) | 100000",
        "string-join(sort((5, 3, 9, 1)), ',') | 1,3,5,9",
        "string-join(for $i in 1 to 5 order by -$i return $i, ',') | 5,4,3,2,1",
        "sum(for $i in 1 to 3000 let $j := $i * 2 where $j mod 3 = 0 return $j) | 3003000",
        "declare function local:fib($n) { if ($n lt 2) then $n else local:fib($n - 1) + local:fib($n - 2) }; local:fib(20) | 6765",
        "declare function local:down($n) { if ($n = 0) then 'done' else local:down($n - 1) }; local:down(300000) | done",
        "declare function local:k() { 42 }; local:k() + 1 | 43",
        "declare function local:k() { 42 }; declare function local:a($n) { if ($n = 0) then local:k() else local:a($n - 1) };"
                + " local:a(10) | 42",
        "declare variable $v := (1 to 3000)[. mod 1000 = 0]; string-join($v, ',') | 1000,2000,3000",
        "string-join(for $d in collection('store:/d/') order by -$d/doc/@n return $d/doc/@n, ',') | 2,1,0",
        "some $i in 1 to 5000 satisfies $i = 4999 | true",
        "count((1 to 10000) ! (. * 2)[. > 19000]) | 500",
        "string-join((1 to 100)[position() = 3 to 5], ',') | 3,4,5",
        "string-join(subsequence(1 to 100000, 5, 3), ',') | 5,6,7",
        "string-join(for $i at $p in (5 to 10) where $p mod 2 = 0 return $i, ',') | 6,8,10",
        "(1 to 5000)[last()], sum(1 to 100000), count(reverse(1 to 3000)) | 5000 5000050000 3000",
        "let $s := (1 to 5000) return count($s[. mod 2 = 0]) + count($s) | 7500",
        "count(for $a in 1 to 100, $b in 1 to 100 where $a = $b return 1) | 100",
        "string-join(for tumbling window $w in (1 to 10) start at $s when true() end at $e when $e - $s = 2"
                + " return string(sum($w)), ',') | 6,15,24,10"
    })
    void checkpointsChangeNoResult(String query, String expected) {
        StoreQuery.Reporting r = new StoreQuery.Reporting(null, false, false, false, Duration.ofMinutes(5));
        StringWriter out = new StringWriter();
        StoreQuery.compile(query, dir.toUri(), "query", confined()).run(store, null, out, r);
        assertThat(out.toString().strip().replace('\n', ' ')).isEqualTo(expected);
    }

    @Test
    void theTimeLimitHoldsForTheOwnersQueryToo() {
        StoreQuery.Reporting r = new StoreQuery.Reporting(new PrintWriter(new StringWriter()), false, false, false,
                Duration.ofSeconds(5), new Ticking());
        StoreQuery q = StoreQuery.compile("sort(1 to 20000000)[1]", URI.create("file:/q"), "query", XmlPolicy.DEFAULT);
        assertThatThrownBy(() -> q.run(store, null, new StringWriter(), r))
                .satisfies(e -> assertThat(((ArnoException) e).code()).isEqualTo(ErrorCode.QUERY_TIMEOUT));
    }
}
