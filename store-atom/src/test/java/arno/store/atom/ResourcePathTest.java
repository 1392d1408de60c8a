package arno.store.atom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.xml.ArnoException;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The name syntax, checked by hand in {@link ResourcePath#isName}, against the pattern it is
 * documented as (the reference), and the paths built of names.
 */
class ResourcePathTest {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,99}");

    @Test
    void namesAreWhatThePatternAccepts() {
        assertThat(ResourcePath.isName("a0001")).isTrue();
        assertThat(ResourcePath.isName("v1-b_2")).isTrue();
        assertThat(ResourcePath.isName("x".repeat(100))).isTrue();
        assertThat(ResourcePath.isName("x".repeat(101))).isFalse();
        assertThat(ResourcePath.isName("")).isFalse();
        assertThat(ResourcePath.isName("-a")).isFalse();
        assertThat(ResourcePath.isName("_a")).isFalse();
        assertThat(ResourcePath.isName("a.b")).isFalse();
        assertThat(ResourcePath.isName("é")).isFalse();

        char[] alphabet = "aZ09_-./é \u0000".toCharArray();
        Random random = new Random(30112026);
        int names = 0;
        for (int n = 0; n < 50_000; n++) {
            StringBuilder b = new StringBuilder();
            int length = random.nextInt(8) == 0 ? 95 + random.nextInt(10) : random.nextInt(6);
            for (int i = 0; i < length; i++) b.append(alphabet[random.nextInt(random.nextInt(3) == 0 ? alphabet.length : 6)]);
            String s = b.toString();
            boolean expected = NAME.matcher(s).matches();
            assertThat(ResourcePath.isName(s)).as(s).isEqualTo(expected);
            // the same characters inside a longer string, as the peek and the path check ask it
            String around = "/x/" + s + "/y";
            assertThat(ResourcePath.isName(around, 3, 3 + s.length())).as(around).isEqualTo(expected);
            if (expected) names++;
        }
        assertThat(names).isBetween(5_000, 45_000);
    }

    @Test
    void aPathIsNamesAfterSlashes() {
        assertThat(ResourcePath.of("/journals/ja/v1").name()).isEqualTo("v1");
        assertThat(ResourcePath.of("/").isRoot()).isTrue();
        for (String bad : new String[] {"/a//b", "/a/b.c", "/a/-b", "/" + "x".repeat(101), "/a/ b"}) {
            assertThatThrownBy(() -> ResourcePath.of(bad)).as(bad).isInstanceOf(ArnoException.class);
        }
        assertThatThrownBy(() -> ResourcePath.of("/a/b.c")).hasMessageContaining("b.c");
        assertThatThrownBy(() -> ResourcePath.of("a/b")).isInstanceOf(ArnoException.class);
        assertThatThrownBy(() -> ResourcePath.of("/a/")).isInstanceOf(ArnoException.class);
    }
}
