package arno.server.console;

import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * A line chart as inline SVG, drawn on the server: the last hour on x (now at the right), 0 to the
 * largest value (rounded up to 1, 2 or 5 times a power of ten) on y, one polyline per series,
 * broken where a point has no value (NaN). No script, no chart library.
 */
final class Plot {
    private static final int W = 720;
    private static final int H = 200;
    private static final int LEFT = 56;
    private static final int BOTTOM = 24;
    private static final String[] COLOURS = {"#1f6fb2", "#d9480f", "#2b8a3e"};

    private Plot() {}

    record Series(String name, ToDoubleFunction<Samples.Point> value) {}

    static void draw(Html h, String title, String unit, List<Samples.Point> points, long now, Double fixedMax, Series... series) {
        h.el("h2", title);
        double max = 0;
        for (Samples.Point p : points) {
            for (Series s : series) {
                double v = s.value().applyAsDouble(p);
                if (!Double.isNaN(v)) max = Math.max(max, v);
            }
        }
        max = fixedMax != null ? fixedMax : nice(max);
        long start = now - Samples.POINTS * Samples.PERIOD_MILLIS;
        h.open("svg", "class", "plot", "viewBox", "0 0 " + W + " " + H, "width", Integer.toString(W), "height", Integer.toString(H),
                "role", "img", "aria-label", title, "xmlns", "http://www.w3.org/2000/svg");
        double plotW = W - LEFT - 8;
        double plotH = H - BOTTOM - 8;
        h.open("line", "x1", n(LEFT), "y1", n(8 + plotH), "x2", n(W - 8), "y2", n(8 + plotH), "stroke", "#888").close("line");
        h.open("line", "x1", n(LEFT), "y1", "8", "x2", n(LEFT), "y2", n(8 + plotH), "stroke", "#888").close("line");
        h.open("text", "x", n(LEFT - 4), "y", "14", "text-anchor", "end", "font-size", "11").text(label(max) + " " + unit).close("text");
        h.open("text", "x", n(LEFT - 4), "y", n(8 + plotH), "text-anchor", "end", "font-size", "11").text("0").close("text");
        h.open("text", "x", n(LEFT), "y", n(H - 6), "font-size", "11").text("-60 min").close("text");
        h.open("text", "x", n(W - 8), "y", n(H - 6), "text-anchor", "end", "font-size", "11").text("now").close("text");
        for (int k = 0; k < series.length; k++) {
            StringBuilder line = new StringBuilder();
            for (Samples.Point p : points) {
                double v = series[k].value().applyAsDouble(p);
                if (Double.isNaN(v) || p.epochMillis() < start) {
                    flush(h, line, COLOURS[k % COLOURS.length]);
                    continue;
                }
                double x = LEFT + plotW * (p.epochMillis() - start) / (double) (now - start);
                double y = 8 + plotH - plotH * Math.min(1, max == 0 ? 0 : v / max);
                line.append(n(x)).append(',').append(n(y)).append(' ');
            }
            flush(h, line, COLOURS[k % COLOURS.length]);
            h.open("text", "x", n(LEFT + 8 + 90 * k), "y", "20", "font-size", "11", "fill", COLOURS[k % COLOURS.length])
                    .text(series[k].name()).close("text");
        }
        h.close("svg");
        if (points.isEmpty()) h.el("p", "No samples yet: one is taken every " + Samples.PERIOD_MILLIS / 1000 + " s.", "class", "note");
    }

    private static void flush(Html h, StringBuilder line, String colour) {
        if (line.length() == 0) return;
        h.open("polyline", "points", line.toString().strip(), "fill", "none", "stroke", colour, "stroke-width", "1.5").close("polyline");
        line.setLength(0);
    }

    /** 1, 2 or 5 times a power of ten, at least {@code v} (1 for nothing). */
    static double nice(double v) {
        if (v <= 0) return 1;
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 5, 10}) if (m * p >= v) return m * p;
        return 10 * p;
    }

    private static String label(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.2g", v);
    }

    private static String n(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
