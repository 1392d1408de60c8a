package arno.perf.pages;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Two flight recordings of two servers under the same load, side by side (issue 25, "found, not
 * guessed"): CPU samples and allocated bytes per page, by the method on top of the stack, by the
 * nearest Arno method below it (which part of Arno asked for the time, whatever library spent it),
 * and by package; the rows where B spends more than A first.
 *
 * <pre>
 * java -cp "$CP" arno.perf.pages.ProfileDiff A.jfr PAGES-A B.jfr PAGES-B [ROWS]
 * </pre>
 *
 * PAGES-x: the pages the server answered while it was recorded (the A/B run prints them), so a
 * figure is per page and not per second. Samples are JFR's (every 10 ms of a running thread with
 * the {@code profile} settings); only the server's request threads and its helpers are counted,
 * which in PerfServer is every thread but JFR's own.
 */
public final class ProfileDiff {

    private ProfileDiff() {
    }

    /** What one recording holds: samples and allocated bytes by key. */
    private static final class Profile {
        final Map<String, Double> cpuTop = new HashMap<>();
        final Map<String, Double> cpuArno = new HashMap<>();
        final Map<String, Double> cpuPackage = new HashMap<>();
        final Map<String, Double> allocArno = new HashMap<>();
        final Map<String, Double> allocClass = new HashMap<>();
        long samples;
        double allocated;
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 4) {
            System.err.println("usage: ProfileDiff A.jfr PAGES-A B.jfr PAGES-B [ROWS]");
            System.exit(2);
        }
        Profile a = read(Path.of(args[0]));
        Profile b = read(Path.of(args[2]));
        double pa = Double.parseDouble(args[1]);
        double pb = Double.parseDouble(args[3]);
        int rows = args.length > 4 ? Integer.parseInt(args[4]) : 25;
        // A sample stands for ~10 ms of one thread's CPU (JFR's profile period for Java code).
        System.out.printf(Locale.ROOT, "CPU samples per 1,000 pages: A %.1f, B %.1f (B/A %.3f); allocated per page: A %.1f KB, B %.1f KB (B/A %.3f)%n",
                1000 * a.samples / pa, 1000 * b.samples / pb, (b.samples / pb) / (a.samples / pa),
                a.allocated / pa / 1024, b.allocated / pb / 1024, (b.allocated / pb) / (a.allocated / pa));
        table("CPU by the Arno method that asked (samples per 1,000 pages)", a.cpuArno, pa, b.cpuArno, pb, rows, 1000);
        table("CPU by package on top (samples per 1,000 pages)", a.cpuPackage, pa, b.cpuPackage, pb, rows, 1000);
        table("CPU by method on top (samples per 1,000 pages)", a.cpuTop, pa, b.cpuTop, pb, rows, 1000);
        table("allocation by the Arno method that asked (bytes per page)", a.allocArno, pa, b.allocArno, pb, rows, 1);
        table("allocation by class (bytes per page)", a.allocClass, pa, b.allocClass, pb, rows, 1);
    }

    private static Profile read(Path file) throws IOException {
        Profile p = new Profile();
        try (RecordingFile f = new RecordingFile(file)) {
            while (f.hasMoreEvents()) {
                RecordedEvent e = f.readEvent();
                String type = e.getEventType().getName();
                boolean cpu = type.equals("jdk.ExecutionSample");
                boolean alloc = type.equals("jdk.ObjectAllocationSample");
                if (!cpu && !alloc) continue;
                RecordedStackTrace st = e.getStackTrace();
                if (st == null || st.getFrames().isEmpty()) continue;
                List<RecordedFrame> frames = st.getFrames();
                String top = name(frames.get(0));
                String arno = "(no Arno frame)";
                for (RecordedFrame fr : frames) {
                    String n = name(fr);
                    if (n.startsWith("arno.")) {
                        arno = n;
                        break;
                    }
                }
                if (cpu) {
                    p.samples++;
                    add(p.cpuTop, top, 1);
                    add(p.cpuArno, arno, 1);
                    add(p.cpuPackage, pkg(top), 1);
                } else {
                    double w = e.getLong("weight");
                    p.allocated += w;
                    add(p.allocArno, arno, w);
                    add(p.allocClass, e.getClass("objectClass").getName(), w);
                }
            }
        }
        return p;
    }

    private static String name(RecordedFrame f) {
        return f.getMethod().getType().getName() + "." + f.getMethod().getName();
    }

    private static String pkg(String method) {
        String cls = method.substring(0, method.lastIndexOf('.'));
        int dot = cls.lastIndexOf('.');
        return dot < 0 ? cls : cls.substring(0, dot);
    }

    private static void add(Map<String, Double> m, String k, double v) {
        m.merge(k, v, Double::sum);
    }

    /** The keys by B's excess over A, per page, then the largest of either. */
    private static void table(String title, Map<String, Double> a, double pa, Map<String, Double> b, double pb, int rows, double scale) {
        Set<String> keys = new HashSet<>(a.keySet());
        keys.addAll(b.keySet());
        List<String> sorted = new ArrayList<>(keys);
        sorted.sort((x, y) -> {
            int c = Double.compare(diff(b, pb, a, pa, y), diff(b, pb, a, pa, x));
            return c != 0 ? c : Double.compare(b.getOrDefault(y, 0.0) / pb, b.getOrDefault(x, 0.0) / pb);
        });
        System.out.printf(Locale.ROOT, "%n%s: B more than A first%n%12s %12s %12s  %s%n", title, "A", "B", "B-A", "where");
        for (int i = 0; i < Math.min(rows, sorted.size()); i++) {
            String k = sorted.get(i);
            double va = scale * a.getOrDefault(k, 0.0) / pa;
            double vb = scale * b.getOrDefault(k, 0.0) / pb;
            System.out.printf(Locale.ROOT, "%12.1f %12.1f %+12.1f  %s%n", va, vb, vb - va, k);
        }
    }

    private static double diff(Map<String, Double> b, double pb, Map<String, Double> a, double pa, String k) {
        return b.getOrDefault(k, 0.0) / pb - a.getOrDefault(k, 0.0) / pa;
    }
}
