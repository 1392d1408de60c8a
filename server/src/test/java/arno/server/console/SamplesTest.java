package arno.server.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The plots' sampler and drawing: quantiles read from the log-scale histogram are each within one
 * bucket (25%) above the true value; a period with no requests or no lookups has no value (NaN),
 * which the plot leaves out; values are escaped and the SVG is drawn only from numbers.
 */
class SamplesTest {
    @Test
    void quantilesComeFromTheBucketsAndAPeriodStartsAfresh() {
        try (Samples s = new Samples(Map::of)) {
            // 98 fast requests at 2 ms and 2 slow ones at 400 ms: p50 is 2 ms, p99 400 ms
            for (int i = 0; i < 98; i++) s.done("t", "r", 200, 2_000_000);
            s.done("t", "r", 200, 400_000_000);
            s.done("t", "r", 500, 400_000_000);
            s.sample();
            Samples.Point p = s.points().get(0);
            assertThat(p.p50Millis()).isBetween(2.0, 2.0 * 1.25);
            assertThat(p.p99Millis()).isBetween(400.0, 400.0 * 1.25);
            assertThat(p.perSecond()).isPositive();
            assertThat(p.hitRatio()).as("no cache lookups").isNaN();
            s.sample();
            Samples.Point empty = s.points().get(1);
            assertThat(empty.perSecond()).isEqualTo(0.0, within(1e-9));
            assertThat(empty.p50Millis()).isNaN();
            assertThat(s.points()).hasSize(2);
        }
    }

    @Test
    void theRingKeepsTheLastHour() {
        try (Samples s = new Samples(Map::of)) {
            for (int i = 0; i < Samples.POINTS + 5; i++) s.sample();
            List<Samples.Point> points = s.points();
            assertThat(points).hasSize(Samples.POINTS);
            for (int i = 1; i < points.size(); i++) assertThat(points.get(i).epochMillis()).isGreaterThanOrEqualTo(points.get(i - 1).epochMillis());
        }
    }

    @Test
    void aPlotLeavesGapsAndEscapesItsTitle() {
        long now = 1_000_000_000L;
        List<Samples.Point> points = List.of(new Samples.Point(now - 30_000, 1, 2, 3, Double.NaN),
                new Samples.Point(now - 20_000, Double.NaN, 2, 3, 0.5), new Samples.Point(now - 10_000, 4, 2, 3, 1));
        Html h = new Html();
        Plot.draw(h, "<rate>", "/s", points, now, null, new Plot.Series("r", Samples.Point::perSecond));
        String svg = h.toString();
        assertThat(svg).contains("&lt;rate&gt;").doesNotContain("<rate>");
        assertThat(svg.split("<polyline", -1)).as("two runs, broken at the NaN").hasSize(3);
        assertThat(svg).contains(">5 /s<");  // 4 rounded up to 5
        assertThat(Plot.nice(0)).isEqualTo(1);
        assertThat(Plot.nice(101)).isEqualTo(200);
    }

    @Test
    void htmlEscapesTextAndAttributes() {
        String s = new Html().el("a", "x<y & 'z'", "href", "\"><script>").toString();
        assertThat(s).isEqualTo("<a href=\"&quot;&gt;&lt;script&gt;\">x&lt;y &amp; &#39;z&#39;</a>");
    }
}
