package arno.perf.pages;

import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import net.sf.saxon.trace.Traceable;

/**
 * Where a full-text page's stylesheet time goes, template by template: the ceiling's pages
 * ({@link CeilingPages}: plain Saxon, TinyTrees, no HTTP) built on one thread by stylesheets
 * compiled with trace calls, each template rule, named template and function timed on entry and
 * exit; prints the 40 largest by time of their own (their callees' taken out), in µs a page. The
 * trace calls cost time of their own (a traced page takes about 1.15 times an untraced one), so
 * read the shares, not the sums. JFR and {@code perf} name Saxon's Java methods, not the
 * stylesheet's templates: this names the templates.
 *
 * <pre>
 * java -cp "$(perf/classpath.sh)" arno.perf.pages.SheetProfile . perf/target/pages/data-1000/content 3
 * </pre>
 */
public final class SheetProfile {
    /** Time of its own, time with its callees, calls: per template, over the measured pages. */
    static final class Acc { long self, total, count; }
    static final Map<String, Acc> accs = new HashMap<>();
    static final class Frame { String key; long start; long child; Frame(String k, long s) { key = k; start = s; } }
    static final ArrayDeque<Frame> stack = new ArrayDeque<>();
    static boolean on;

    static String key(Traceable t) {
        String kind = t.getClass().getSimpleName();
        if (!(kind.equals("TemplateRule") || kind.equals("NamedTemplate") || kind.equals("UserFunction"))) return null;
        StringBuilder b = new StringBuilder(kind).append(' ');
        if (t.getObjectName() != null) b.append(t.getObjectName().getDisplayName());
        t.gatherProperties((k, v) -> { if (k.equals("match") || k.equals("mode")) b.append(' ').append(k).append('=').append(v); });
        var loc = t.getLocation();
        if (loc != null) b.append(" @").append(loc.getSystemId() == null ? "?" : loc.getSystemId().replaceAll(".*/", "")).append(':').append(loc.getLineNumber());
        return b.toString();
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]), content = Path.of(args[1]);
        int n = Integer.parseInt(args[2]);
        CeilingPages.trace = new net.sf.saxon.lib.TraceListener() {
            final IdentityHashMap<Traceable, String> keys = new IdentityHashMap<>();
            @Override public void enter(Traceable t, Map<String, Object> p, net.sf.saxon.expr.XPathContext c) {
                String k = keys.computeIfAbsent(t, SheetProfile::key);
                if (k == null) { stack.push(new Frame(null, 0)); return; }
                stack.push(new Frame(k, System.nanoTime()));
            }
            @Override public void leave(Traceable t) {
                Frame f = stack.pop();
                if (f.key == null) return;
                long d = System.nanoTime() - f.start;
                if (on) {
                    Acc a = accs.computeIfAbsent(f.key, x -> new Acc());
                    a.total += d; a.self += d - f.child; a.count++;
                }
                for (Frame up : stack) if (up.key != null) { up.child += d; break; }
            }
        };
        CeilingPages site = new CeilingPages(root, content, null);
        List<CeilingPages.Page> pages = new ArrayList<>();
        for (String p : PerfServer.fullTextPaths(content)) pages.add(site.page(p));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int r = 0; r < 3; r++) for (CeilingPages.Page p : pages) { out.reset(); site.render(p, out); }
        on = true;
        long t0 = System.nanoTime();
        int count = 0;
        for (int r = 0; r < n; r++) for (CeilingPages.Page p : pages) { out.reset(); site.render(p, out); count++; }
        long all = System.nanoTime() - t0;
        final int pagesDone = count;
        System.out.printf("%d pages, %.0f us a page (traced)%n", count, all / 1e3 / count);
        accs.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue().self, a.getValue().self)).limit(40).forEach(e ->
            System.out.printf("self %6.1f us  total %6.1f us  calls/page %7.1f  %s%n", e.getValue().self / 1e3 / pagesDone, e.getValue().total / 1e3 / pagesDone,
                (double) e.getValue().count / pagesDone, e.getKey()));
    }
}
