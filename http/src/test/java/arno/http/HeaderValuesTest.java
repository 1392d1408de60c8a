package arno.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one header parser: lists, parameters, quoted strings, qualities (RFC 9110 5.6). */
class HeaderValuesTest {
    @Test
    void aCommaOrSemicolonInsideAQuotedStringBelongsToItsElement() {
        List<HeaderValues.Element> e = HeaderValues.parse("W/\"a,b\", \"c;d\", private=\"Set-Cookie, X-Id\"");
        assertThat(e).extracting(HeaderValues.Element::value)
                .containsExactly("W/\"a,b\"", "\"c;d\"", "private=\"Set-Cookie, X-Id\"");
        assertThat(e.get(2).is("private")).isTrue();
        assertThat(e.get(2).argument()).isEqualTo("Set-Cookie, X-Id");
    }

    @Test
    void parametersAreReadWithLowerCaseNamesAndUnquotedValues() {
        HeaderValues.Element e = HeaderValues.parse("Application/Atom+XML ; Type=entry; title=\"a \\\"b\\\"; c\"").get(0);
        assertThat(e.value()).isEqualTo("Application/Atom+XML");
        assertThat(e.parameters()).isEqualTo(Map.of("type", "entry", "title", "a \"b\"; c"));
        assertThat(e.parameter("TYPE")).isEqualTo("entry");
        assertThat(HeaderValues.mediaType("Application/Atom+XML ; type=entry")).isEqualTo("application/atom+xml");
        assertThat(HeaderValues.parameter("text/plain; charset=\"ISO-8859-1\"", "charset")).isEqualTo("ISO-8859-1");
        assertThat(HeaderValues.mediaType("  ")).isNull();
        assertThat(HeaderValues.mediaType(null)).isNull();
    }

    @Test
    void emptyElementsAreSkippedAndEveryLineIsRead() {
        // RFC 9110 5.6.1.2: "foo,bar", "foo ,bar,", "foo , ,bar,charlie" are valid lists
        assertThat(HeaderValues.parse("foo , ,bar,charlie")).extracting(HeaderValues.Element::value)
                .containsExactly("foo", "bar", "charlie");
        assertThat(HeaderValues.parse(List.of("foo ,bar,", "", " , baz"))).extracting(HeaderValues.Element::value)
                .containsExactly("foo", "bar", "baz");
        assertThat(HeaderValues.parse(", ,")).isEmpty();
    }

    @Test
    void anUnclosedQuoteRunsToTheEndWithoutFailing() {
        assertThat(HeaderValues.parse("\"abc, def")).extracting(HeaderValues.Element::value).containsExactly("\"abc, def");
    }

    @Test
    void qualitiesAreNumbersFromZeroToOneElseZero() {
        List<HeaderValues.Element> e = HeaderValues.parse("a, b;q=0.5, c;Q=0, d;q=x, e;q=2");
        assertThat(e).extracting(HeaderValues.Element::quality).containsExactly(1.0, 0.5, 0.0, 0.0, 0.0);
    }

    @Test
    void namesCountsExplicitTypesWithAWeightAboveZeroOnly() {
        List<HeaderValues.Element> accept = HeaderValues.parse("text/html,application/xhtml+xml;q=0.9,*/*;q=0.8");
        assertThat(HeaderValues.names(accept, "text/html")).isTrue();
        assertThat(HeaderValues.names(accept, "application/atom+xml")).isFalse(); // */* is not asking for it
        assertThat(HeaderValues.names(HeaderValues.parse("application/openmetrics-text; version=1.0.0; q=0"),
                "application/openmetrics-text")).isFalse();
        assertThat(HeaderValues.names(HeaderValues.parse("Application/OpenMetrics-Text; version=1.0.0"),
                "application/openmetrics-text")).isTrue();
    }

    @Test
    void gzipIsAcceptedByNameOrByAWildcardWhenNotNamed() {
        assertThat(HeaderValues.acceptsGzip(List.of("gzip, deflate, br"))).isTrue();
        assertThat(HeaderValues.acceptsGzip(List.of("deflate", "x-gzip"))).isTrue();
        assertThat(HeaderValues.acceptsGzip(List.of("*"))).isTrue();
        assertThat(HeaderValues.acceptsGzip(List.of("br;q=1.0, gzip;q=0.8, *;q=0.1"))).isTrue();
        // RFC 9110 12.5.3: a coding named with q=0 is refused, whatever "*" says
        assertThat(HeaderValues.acceptsGzip(List.of("gzip;q=0, *"))).isFalse();
        assertThat(HeaderValues.acceptsGzip(List.of("*;q=0"))).isFalse();
        assertThat(HeaderValues.acceptsGzip(List.of("identity"))).isFalse();
        assertThat(HeaderValues.acceptsGzip(List.of())).isFalse();
    }

    @Test
    void cacheControlDirectivesAreReadByName() {
        List<HeaderValues.Element> cc = HeaderValues.parse("public, Max-Age=60, no-cache=\"Set-Cookie\"");
        assertThat(cc.get(1).is("max-age")).isTrue();
        assertThat(cc.get(1).argument()).isEqualTo("60");
        assertThat(cc.get(2).is("no-cache")).isTrue();
        assertThat(cc.get(2).is("no-store")).isFalse();
        assertThat(cc.get(0).argument()).isNull();
    }
}
