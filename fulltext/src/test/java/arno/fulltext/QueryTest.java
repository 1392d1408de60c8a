package arno.fulltext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.store.Store;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.StoreFunctions;
import arno.xml.XmlPolicy;
import java.io.StringReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.SchemaFactory;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XdmNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad queries get a precise bad-query with a position; store:ft-search returns a valid store:results. */
class QueryTest {

    @TempDir
    static Path dir;
    static Store store;
    static FulltextIndex index;

    @BeforeAll
    static void build() throws Exception {
        store = Articles.open(dir.resolve("store"));
        long v = Articles.store(store, Articles.generate(20, 11), true);
        index = FulltextIndex.open(store, dir.resolve("ft"), FulltextIndex.Options.defaults());
        assertThat(index.awaitVersion(v, Duration.ofSeconds(30))).isTrue();
    }

    @AfterAll
    static void close() {
        if (index != null) index.close();
        if (store != null) store.close();
    }

    static ArnoException refusal(String q) {
        try {
            index.search(SearchRequest.of(q));
        } catch (ArnoException e) {
            assertThat(e.code()).as(e.getMessage()).isEqualTo(ErrorCode.BAD_QUERY);
            assertThat(e.status()).isEqualTo(400);
            return e;
        }
        throw new AssertionError("accepted: " + q);
    }

    @Test
    void badQueriesAreRefusedNamingThePosition() {
        assertThat(refusal("").getMessage()).contains("position 1").contains("no words");
        assertThat(refusal("   ").getMessage()).contains("no words");
        assertThat(refusal("alpha ".repeat(2000)).getMessage()).contains("position 1001").contains("12000 characters");
        assertThat(refusal("a ".repeat(99) + "b".repeat(9801)).getMessage()).contains("limit of 1000");
        String many = "alpha ".repeat(QueryReader.MAX_TERMS) + "bravo";
        assertThat(refusal(many).getMessage()).contains("position " + (6 * QueryReader.MAX_TERMS + 1)).contains("more than 64 terms");
        assertThat(refusal("alpha \"bravo charlie").getMessage()).contains("position 7").contains("not closed");
        assertThat(refusal("*").getMessage()).contains("position 1").contains("wildcard");
        assertThat(refusal("alpha ?ravo").getMessage()).contains("position 7");
        assertThat(refusal("title:*lpha").getMessage()).contains("position 7");
        assertThat(refusal("colour:red").getMessage()).contains("position 1").contains("no field 'colour'").contains("title");
        assertThat(refusal("(alpha OR bravo").getMessage()).contains("position 16").contains("ends too early");
        assertThat(refusal("alpha AND").getMessage()).contains("ends too early");
        assertThat(refusal("alpha ) bravo").getMessage()).contains("position 7").contains("')'");
        assertThat(refusal("year:recent").getMessage()).contains("not a year");
    }

    @Test
    void oddButHarmlessQueriesAreAnswered() {
        assertThat(index.search(SearchRequest.of("河流 水")).total()).isZero();
        assertThat(index.search(SearchRequest.of("the of and")).total()).as("only stop words").isZero();
        assertThat(index.search(SearchRequest.of("doi:10.5555/a3")).hits()).extracting(Results.Hit::path)
                .containsExactly("/journals/jb/v1/i1/a3");
        assertThat(index.search(SearchRequest.of("alpha/bravo")).total()).as("a slash is no regular expression").isNotNegative();
    }

    @Test
    void aSearchPastItsTimeLimitIsStopped() throws Exception {
        try (FulltextIndex slow = FulltextIndex.open(store, dir.resolve("ft-slow"),
                new FulltextIndex.Options(Duration.ofMillis(100), Duration.ofSeconds(5), Duration.ofNanos(1)))) {
            assertThat(slow.awaitVersion(store.version(), Duration.ofSeconds(30))).isTrue();
            assertThatThrownBy(() -> slow.search(SearchRequest.of("alpha OR bravo OR ch*")))
                    .isInstanceOfSatisfying(ArnoException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.QUERY_TIMEOUT);
                        assertThat(e.getMessage()).contains("time limit");
                    });
        }
    }

    @Test
    void ftSearchReturnsAValidResultsElement() throws Exception {
        Processor p = new Processor(false);
        FtSearchFunction.register(p.getUnderlyingConfiguration(), () -> index);
        XPathCompiler c = p.newXPathCompiler();
        c.declareNamespace("store", StoreFunctions.NS);
        XdmNode results = (XdmNode) c.evaluateSingle(
                "store:ft-search('alpha <&>', map{'size': 3, 'journal': ('Journal A', 'Journal B'), 'year-from': 2015})", null);
        String xml = results.toString();
        SchemaFactory f = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
        f.newSchema(FtSearchFunction.class.getResource(ResultsXml.SCHEMA)).newValidator()
                .validate(new StreamSource(new StringReader(xml)));
        Results direct = index.search(SearchRequest.of("alpha <&>", Map.of("size", List.of("3"))));
        assertThat(c.evaluateSingle("string(@total)", results).getStringValue()).isEqualTo(Long.toString(direct.total()));
        assertThat(c.evaluate("store:hit/@path/string()", results).stream().map(i -> i.getStringValue()).toList())
                .isEqualTo(direct.hits().stream().map(Results.Hit::path).toList());
        assertThat(c.evaluate("store:hit/store:snippet/store:match", results).size()).isPositive();
        assertThat(c.evaluateSingle("string(@query)", results).getStringValue()).isEqualTo("alpha <&>");
        assertThat(c.evaluate("store:facet[@field = 'year']/store:value", results).size()).isPositive();

        assertThatThrownBy(() -> c.evaluateSingle("store:ft-search('*')", null))
                .hasRootCauseInstanceOf(ArnoException.class).hasMessageContaining("wildcard");
    }

    @Test
    void theDefaultConfigurationIsValidAndABadOneIsSaidPrecisely() {
        FulltextConfig c = FulltextConfig.parse(FulltextConfig.defaultXml(), "default", XmlPolicy.DEFAULT);
        assertThat(c.fields()).extracting(FulltextConfig.Field::name)
                .contains("title", "abstract", "body", "authors", "keywords", "doi", "journal", "year", "type");
        assertThatThrownBy(() -> FulltextConfig.parse("<fulltext xmlns=\"urn:arno:fulltext\"><field name=\"Title\" select=\".\"/></fulltext>"
                .getBytes(), "store:/_config/fulltext.xml", XmlPolicy.DEFAULT))
                .isInstanceOfSatisfying(ArnoException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.BAD_CONFIGURATION);
                    assertThat(e.getMessage()).contains("store:/_config/fulltext.xml").contains("Title");
                });
    }
}
