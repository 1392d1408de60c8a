package arno.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RouteTest {
    static Route route(String pattern) {
        return new Route("r", pattern, Set.of("GET"), 1000, new Pipeline(List.of()));
    }

    @Test
    void literalsMustMatchExactly() {
        assertThat(route("/").match("/")).isEmpty();
        assertThat(route("/").match("/a")).isNull();
        assertThat(route("/about").match("/about")).isEmpty();
        assertThat(route("/about").match("/about/")).isEmpty();
        assertThat(route("/about").match("/abou")).isNull();
        assertThat(route("/about").match("/about/more")).isNull();
    }

    @Test
    void variablesTakeOneSegmentEach() {
        assertThat(route("/{volume}/{issue}").match("/v1/i2")).isEqualTo(Map.of("volume", "v1", "issue", "i2"));
        assertThat(route("/{volume}/{issue}").match("/v1")).isNull();
        assertThat(route("/{volume}/{issue}").match("/v1/i2/a3")).isNull();
        assertThat(route("/{v}/{i}/{a}/full").match("/v1/i2/a3/full")).containsEntry("a", "a3");
        assertThat(route("/{v}/{i}/{a}/full").match("/v1/i2/a3/abstract")).isNull();
    }

    @Test
    void aRestVariableTakesWhatRemainsEvenNothing() {
        assertThat(route("/files/{rest*}").match("/files/a/b/c.xml")).isEqualTo(Map.of("rest", "a/b/c.xml"));
        assertThat(route("/files/{rest*}").match("/files")).isEqualTo(Map.of("rest", ""));
        assertThat(route("/files/{rest*}").match("/other/a")).isNull();
    }

    @Test
    void aPathSplitsIntoItsNonEmptySegmentsAsStringSplitWouldGiveThem() {
        for (String path : List.of("", "/", "//", "/a", "a", "/a/", "/a//b/", "//a/b//c", "/v1/i2/a0003/full", "/é/ü")) {
            String[] reference = java.util.Arrays.stream(path.split("/")).filter(x -> !x.isEmpty()).toArray(String[]::new);
            assertThat(Route.split(path)).as(path).containsExactly(reference);
        }
        // a path split once answers every route as the path itself does
        assertThat(route("/{v}/{i}/{a}/full").match(Route.split("/v1/i2/a3/full"))).containsEntry("i", "i2");
        assertThat(route("/files/{rest*}").match(Route.split("/files//a/b"))).isEqualTo(Map.of("rest", "a/b"));
    }

    @Test
    void variablesKeepPatternOrder() {
        assertThat(route("/{b}/{a}").match("/1/2").keySet()).containsExactly("b", "a");
    }
}
