package arno.http;

import static arno.http.Conditional.Outcome.FAILED;
import static arno.http.Conditional.Outcome.NOT_MODIFIED;
import static arno.http.Conditional.Outcome.PROCEED;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Conditional requests against the examples of RFC 9110 (sections 8.8.3, 13.1 and 13.2). */
class ConditionalTest {
    /** 1994-10-29T19:43:31Z, the date of the RFC's If-Modified-Since example. */
    private static final long EXAMPLE = ZonedDateTime.parse("1994-10-29T19:43:31Z").toInstant().toEpochMilli();
    private static final String EXAMPLE_DATE = "Sat, 29 Oct 1994 19:43:31 GMT";

    /** RFC 9110 8.8.3.2, the table of comparisons. */
    @Test
    void strongAndWeakComparisonAsTheRfcTableSays() {
        String[][] rows = {
            // ETag 1, ETag 2, strong, weak
            {"W/\"1\"", "W/\"1\"", "no", "yes"},
            {"W/\"1\"", "W/\"2\"", "no", "no"},
            {"W/\"1\"", "\"1\"", "no", "yes"},
            {"\"1\"", "\"1\"", "yes", "yes"},
        };
        for (String[] r : rows) {
            Conditional.Tag a = Conditional.Tag.parse(r[0]);
            Conditional.Tag b = Conditional.Tag.parse(r[1]);
            assertThat(a.strongMatch(b)).as(r[0] + " strong " + r[1]).isEqualTo(r[2].equals("yes"));
            assertThat(b.strongMatch(a)).as(r[1] + " strong " + r[0]).isEqualTo(r[2].equals("yes"));
            assertThat(a.weakMatch(b)).as(r[0] + " weak " + r[1]).isEqualTo(r[3].equals("yes"));
            assertThat(b.weakMatch(a)).as(r[1] + " weak " + r[0]).isEqualTo(r[3].equals("yes"));
        }
    }

    @Test
    void tagsAreQuotedOpaqueStrings() {
        assertThat(Conditional.Tag.parse("\"xyzzy\"")).isEqualTo(new Conditional.Tag(false, "xyzzy"));
        assertThat(Conditional.Tag.parse("W/\"xyzzy\"")).isEqualTo(new Conditional.Tag(true, "xyzzy"));
        assertThat(Conditional.Tag.parse("\"\"")).isEqualTo(new Conditional.Tag(false, ""));
        assertThat(Conditional.Tag.parse("xyzzy")).isNull();
        assertThat(Conditional.Tag.parse("w/\"x\"")).isNull(); // the weak indicator is case-sensitive
        assertThat(Conditional.Tag.parse("\"a\"b\"")).isNull();
        assertThat(Conditional.Tag.parse("W/\"x\"").toString()).isEqualTo("W/\"x\"");
    }

    /** RFC 9110 13.1.1: If-Match uses the strong comparison; "*" matches any current representation. */
    @Test
    void ifMatchAsInTheRfcExamples() {
        assertThat(eval("PUT", "\"xyzzy\"", -1, "If-Match", "\"xyzzy\"")).isEqualTo(PROCEED);
        assertThat(eval("PUT", "\"xyzzy\"", -1, "If-Match", "\"xyzzy\", \"r2d2xxxx\", \"c3piozzzz\"")).isEqualTo(PROCEED);
        assertThat(eval("PUT", "\"c3piozzzz\"", -1, "If-Match", "\"xyzzy\", \"r2d2xxxx\", \"c3piozzzz\"")).isEqualTo(PROCEED);
        assertThat(eval("PUT", "\"other\"", -1, "If-Match", "\"xyzzy\", \"r2d2xxxx\", \"c3piozzzz\"")).isEqualTo(FAILED);
        assertThat(eval("PUT", "\"anything\"", -1, "If-Match", "*")).isEqualTo(PROCEED);
        // strong comparison: a weak tag on either side never matches
        assertThat(eval("PUT", "W/\"xyzzy\"", -1, "If-Match", "W/\"xyzzy\"")).isEqualTo(FAILED);
        assertThat(eval("PUT", "\"xyzzy\"", -1, "If-Match", "W/\"xyzzy\"")).isEqualTo(FAILED);
        // a GET with a failing If-Match is refused too (13.1.1: MUST NOT perform the method)
        assertThat(eval("GET", "\"1\"", -1, "If-Match", "\"2\"")).isEqualTo(FAILED);
        // no current tag: only "*" holds
        assertThat(eval("PUT", null, -1, "If-Match", "\"xyzzy\"")).isEqualTo(FAILED);
    }

    /** RFC 9110 13.1.2: If-None-Match uses the weak comparison; 304 for GET and HEAD, 412 for others. */
    @Test
    void ifNoneMatchAsInTheRfcExamples() {
        for (String current : List.of("\"xyzzy\"", "W/\"xyzzy\"")) {
            assertThat(eval("GET", current, -1, "If-None-Match", "\"xyzzy\"")).as(current).isEqualTo(NOT_MODIFIED);
            assertThat(eval("GET", current, -1, "If-None-Match", "W/\"xyzzy\"")).as(current).isEqualTo(NOT_MODIFIED);
            assertThat(eval("HEAD", current, -1, "If-None-Match", "\"xyzzy\", \"r2d2xxxx\", \"c3piozzzz\"")).as(current)
                    .isEqualTo(NOT_MODIFIED);
            assertThat(eval("GET", current, -1, "If-None-Match", "W/\"xyzzy\", W/\"r2d2xxxx\", W/\"c3piozzzz\"")).as(current)
                    .isEqualTo(NOT_MODIFIED);
            assertThat(eval("GET", current, -1, "If-None-Match", "*")).as(current).isEqualTo(NOT_MODIFIED);
            assertThat(eval("GET", current, -1, "If-None-Match", "\"r2d2xxxx\"")).as(current).isEqualTo(PROCEED);
        }
        assertThat(eval("PUT", "\"xyzzy\"", -1, "If-None-Match", "\"xyzzy\"")).isEqualTo(FAILED);
        assertThat(eval("PUT", "\"xyzzy\"", -1, "If-None-Match", "*")).isEqualTo(FAILED);
        assertThat(eval("PUT", "\"xyzzy\"", -1, "If-None-Match", "\"other\"")).isEqualTo(PROCEED);
    }

    @Test
    void everyLineOfTheHeaderCountsAndCommasInsideTagsDoNotSplitThem() {
        Map<String, List<String>> h = new LinkedHashMap<>();
        h.put("If-None-Match", List.of("\"a\"", "\"b\", \"c\""));
        assertThat(Conditional.evaluate("GET", name -> h.getOrDefault(name, List.of()), "\"c\"", -1)).isEqualTo(NOT_MODIFIED);
        assertThat(eval("GET", "\"a,b\"", -1, "If-None-Match", "\"x\", \"a,b\"")).isEqualTo(NOT_MODIFIED);
        assertThat(eval("GET", "\"b\"", -1, "If-None-Match", "\"a,b\"")).isEqualTo(PROCEED);
    }

    /** The gzip form of a strong tag ("x--gzip", the connector's and the page cache's) stands for its representation. */
    @Test
    void theGzipFormOfATagMatchesItsRepresentation() {
        assertThat(Conditional.gzipTag("\"v42\"")).isEqualTo("\"v42--gzip\"");
        assertThat(eval("GET", "\"v42\"", -1, "If-None-Match", "\"v42--gzip\"")).isEqualTo(NOT_MODIFIED);
        assertThat(eval("GET", "\"v42\"", -1, "If-None-Match", "W/\"v42--gzip\"")).isEqualTo(NOT_MODIFIED);
        assertThat(eval("PUT", "\"v42\"", -1, "If-Match", "\"v42--gzip\"")).isEqualTo(PROCEED);
        assertThat(eval("GET", "\"v43\"", -1, "If-None-Match", "\"v42--gzip\"")).isEqualTo(PROCEED);
        assertThat(Conditional.Tag.parse("\"v42--gzip\"").identity()).isEqualTo("v42");
    }

    /** RFC 9110 13.1.3, with the example's date: not modified since then is 304; later is the page. */
    @Test
    void ifModifiedSinceAsInTheRfcExample() {
        assertThat(eval("GET", null, EXAMPLE, "If-Modified-Since", EXAMPLE_DATE)).isEqualTo(NOT_MODIFIED);
        assertThat(eval("GET", null, EXAMPLE - 60_000, "If-Modified-Since", EXAMPLE_DATE)).isEqualTo(NOT_MODIFIED);
        // whole seconds: a modification within the same second is not after it
        assertThat(eval("GET", null, EXAMPLE + 999, "If-Modified-Since", EXAMPLE_DATE)).isEqualTo(NOT_MODIFIED);
        assertThat(eval("GET", null, EXAMPLE + 1000, "If-Modified-Since", EXAMPLE_DATE)).isEqualTo(PROCEED);
        // only for GET and HEAD; ignored without a Last-Modified or with a date that is not one
        assertThat(eval("POST", null, EXAMPLE, "If-Modified-Since", EXAMPLE_DATE)).isEqualTo(PROCEED);
        assertThat(eval("GET", null, -1, "If-Modified-Since", EXAMPLE_DATE)).isEqualTo(PROCEED);
        assertThat(eval("GET", null, EXAMPLE, "If-Modified-Since", "yesterday")).isEqualTo(PROCEED);
    }

    /** RFC 9110 5.6.7: a recipient accepts all three date forms; the RFC's examples name one instant. */
    @Test
    void datesInTheThreeFormsOfTheRfc() {
        long expected = ZonedDateTime.parse("1994-11-06T08:49:37Z").toInstant().toEpochMilli();
        for (String form : List.of("Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994")) {
            assertThat(Conditional.date(List.of(form))).as(form).isEqualTo(expected);
            assertThat(eval("GET", null, expected, "If-Modified-Since", form)).as(form).isEqualTo(NOT_MODIFIED);
        }
        assertThat(Conditional.date(List.of())).isEqualTo(-1);
        assertThat(Conditional.date(List.of("06 Nov 1994"))).isEqualTo(-1);
    }

    /** RFC 9110 13.1.4, with the example's date. */
    @Test
    void ifUnmodifiedSinceAsInTheRfcExample() {
        assertThat(eval("PUT", null, EXAMPLE, "If-Unmodified-Since", EXAMPLE_DATE)).isEqualTo(PROCEED);
        assertThat(eval("PUT", null, EXAMPLE + 1000, "If-Unmodified-Since", EXAMPLE_DATE)).isEqualTo(FAILED);
        assertThat(eval("GET", null, EXAMPLE + 1000, "If-Unmodified-Since", EXAMPLE_DATE)).isEqualTo(FAILED);
        assertThat(eval("PUT", null, -1, "If-Unmodified-Since", EXAMPLE_DATE)).isEqualTo(PROCEED);
        assertThat(eval("PUT", null, EXAMPLE + 1000, "If-Unmodified-Since", "not a date")).isEqualTo(PROCEED);
    }

    /** RFC 9110 13.2.2: a date condition is read only when the tag condition of its kind is absent. */
    @Test
    void theOrderOfEvaluation() {
        // If-Match holds: If-Unmodified-Since is not read
        assertThat(eval("PUT", "\"1\"", EXAMPLE + 1000, "If-Match", "\"1\"", "If-Unmodified-Since", EXAMPLE_DATE))
                .isEqualTo(PROCEED);
        // If-None-Match present and false: If-Modified-Since is not read
        assertThat(eval("GET", "\"1\"", EXAMPLE, "If-None-Match", "\"2\"", "If-Modified-Since", EXAMPLE_DATE))
                .isEqualTo(PROCEED);
        // a failing If-Match wins over a matching If-None-Match
        assertThat(eval("GET", "\"1\"", -1, "If-Match", "\"2\"", "If-None-Match", "\"1\"")).isEqualTo(FAILED);
        // If-Unmodified-Since failing wins too
        assertThat(eval("GET", "\"1\"", EXAMPLE + 1000, "If-Unmodified-Since", EXAMPLE_DATE, "If-None-Match", "\"1\""))
                .isEqualTo(FAILED);
        assertThat(eval("GET", "\"1\"", EXAMPLE, "If-Match", "\"1\"", "If-None-Match", "\"1\"")).isEqualTo(NOT_MODIFIED);
        assertThat(eval("GET", "\"1\"", EXAMPLE)).isEqualTo(PROCEED);
    }

    /** RFC 9110 13.1.5: If-Range needs a strong tag that is the current one exactly. */
    @Test
    void ifRangeWithStrongTagsOnly() {
        assertThat(Conditional.rangeApplies(null, "\"7\"")).isTrue();
        assertThat(Conditional.rangeApplies("\"7\"", "\"7\"")).isTrue();
        assertThat(Conditional.rangeApplies(" \"7\" ", "\"7\"")).isTrue();
        assertThat(Conditional.rangeApplies("\"8\"", "\"7\"")).isFalse();
        assertThat(Conditional.rangeApplies("W/\"7\"", "\"7\"")).isFalse();
        assertThat(Conditional.rangeApplies("\"7--gzip\"", "\"7\"")).isFalse();
        assertThat(Conditional.rangeApplies(EXAMPLE_DATE, "\"7\"")).isFalse();
    }

    @Test
    void tagsOfAnIfMatchHeader() {
        assertThat(Conditional.Tags.parse(List.of())).isNull();
        Conditional.Tags t = Conditional.Tags.parse(List.of("\"1\", W/\"2\"", "junk, *"));
        assertThat(t.any()).isTrue();
        assertThat(t.tags()).containsExactly(new Conditional.Tag(false, "1"), new Conditional.Tag(true, "2"));
    }

    /** Evaluates with the current {@code etag} and {@code lastModified}; {@code headers} are name, value pairs. */
    private static Conditional.Outcome eval(String method, String etag, long lastModified, String... headers) {
        Map<String, List<String>> h = new LinkedHashMap<>();
        for (int i = 0; i < headers.length; i += 2) {
            h.computeIfAbsent(headers[i].toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(headers[i + 1]);
        }
        return Conditional.evaluate(method, name -> h.getOrDefault(name.toLowerCase(Locale.ROOT), List.of()), etag, lastModified);
    }
}
