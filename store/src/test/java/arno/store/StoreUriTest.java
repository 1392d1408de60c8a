package arno.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Store#checkUri}, which walks a URI once without allocating, against the plain version
 * it replaced (split into segments, encoded to count bytes) as the reference: the same URIs
 * accepted, the same problem named for every one refused.
 */
class StoreUriTest {

    /** The plain check: the reference. Null when the URI is good, else what is wrong with it. */
    private static String reference(String uri) {
        if (uri == null || uri.isEmpty()) return "is empty";
        if (uri.charAt(0) != '/') return "does not start with '/'";
        if (uri.length() > 1 && uri.endsWith("/")) return "ends with '/' (that names a folder, not a document)";
        if (uri.length() == 1) return "names the root folder, not a document";
        if (uri.getBytes(StandardCharsets.UTF_8).length > Store.MAX_URI_BYTES) {
            return "is longer than " + Store.MAX_URI_BYTES + " bytes";
        }
        String problem = null;
        for (String seg : uri.substring(1).split("/", -1)) {
            if (seg.isEmpty()) problem = "has an empty segment ('//')";
            else if (seg.equals(".") || seg.equals("..")) problem = "has a '" + seg + "' segment";
        }
        for (int i = 0; i < uri.length() && problem == null; i++) {
            char c = uri.charAt(i);
            if (c < 0x20 || c == 0x7F) problem = "has a control character at index " + i;
            else if (c == '?' || c == '#') problem = "has a '" + c + "' (no query or fragment in store URIs)";
            else if (c == '\\') problem = "has a backslash";
        }
        return problem;
    }

    /** What {@link Store#checkUri} says of {@code uri}: null when it accepts it, else its message. */
    private static String checked(String uri) {
        try {
            assertThat(Store.checkUri(uri)).isSameAs(uri);
            return null;
        } catch (StoreException e) {
            return e.getMessage();
        }
    }

    @Test
    void namedCasesAreJudgedAsTheDocumentedRulesSay() {
        assertThat(checked("/a/b.xml")).isNull();
        assertThat(checked("/journals/ja/v1/i1/a0001.atom")).isNull();
        assertThat(checked("/a/.hidden")).isNull();
        assertThat(checked("/a/...")).isNull();
        assertThat(checked("/é/文書.xml")).isNull();
        assertThat(checked("")).contains("is empty");
        assertThat(checked("a/b")).contains("does not start with '/'");
        assertThat(checked("/a/")).contains("ends with '/'");
        assertThat(checked("/a//b")).contains("has an empty segment ('//')");
        assertThat(checked("/a/../b")).contains("has a '..' segment");
        assertThat(checked("/./b")).contains("has a '.' segment");
        assertThat(checked("/a?x")).contains("has a '?'");
        assertThat(checked("/a\\b")).contains("has a backslash");
        assertThat(checked("/a\u0001b")).contains("has a control character at index 2");
        // 134 three-byte characters: 402 bytes in UTF-8, though only 135 chars long.
        assertThat(checked("/" + "文".repeat(134))).contains("is longer than 400 bytes");
        assertThat(checked("/" + "文".repeat(133))).isNull();
        assertThat(checked("/" + "a".repeat(399))).isNull();
        assertThat(checked("/" + "a".repeat(400))).contains("is longer than 400 bytes");
    }

    @Test
    void randomUrisAreJudgedAsThePlainCheckJudgesThem() {
        // Built from the characters the rules turn on, so most URIs hit one rule or several.
        String[] parts = {"/", "/", "/", ".", "..", "a", "b0", "é", "文", "\uD83D\uDE00", "\uD800", "\uDC00", "?", "#",
                "\\", "\u0001", "\u007F", "x".repeat(60), "文".repeat(30)};
        Random random = new Random(20261130);
        List<String> uris = new ArrayList<>();
        for (int n = 0; n < 50_000; n++) {
            StringBuilder b = new StringBuilder(random.nextInt(10) == 0 ? "" : "/");
            int length = random.nextInt(12);
            for (int i = 0; i < length; i++) b.append(parts[random.nextInt(parts.length)]);
            uris.add(b.toString());
        }
        int refused = 0;
        for (String uri : uris) {
            String expected = reference(uri);
            String actual = checked(uri);
            if (expected == null) {
                assertThat(actual).as(uri).isNull();
            } else {
                refused++;
                assertThat(actual).as(uri).isNotNull().contains(expected);
            }
        }
        // Both outcomes were exercised in numbers.
        assertThat(refused).isBetween(1_000, uris.size() - 1_000);
    }

    @Test
    void aNullUriIsRefusedAsEmpty() {
        assertThatThrownBy(() -> Store.checkUri(null)).isInstanceOf(StoreException.class).hasMessageContaining("is empty");
    }
}
