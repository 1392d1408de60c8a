package arno.store;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

import arno.xml.StoreFunctions;
import arno.xml.XmlWriter;

/**
 * How a search finds its documents ({@link Search#plan()}): the path-value conditions the
 * {@link Planner} drew from the condition, each with the index that answers it (or why none can),
 * in the order they are used, and what is verified. Equal conditions, however nested, give equal
 * plans: a plan holds no trace of how the condition was written.
 *
 * @param under        the folder searched
 * @param conjuncts    the conditions every result must meet, in the order used: the driving one
 *                     first, then those intersected, then those only verified, then those no index answers
 * @param verifiedOnly negations and disjunctions, which only verification decides
 * @param scan         whether no index narrows the search, so every document under {@code under} is verified
 */
public record Plan(String under, List<Conjunct> conjuncts, List<String> verifiedOnly, boolean scan) {

    public Plan {
        conjuncts = List.copyOf(conjuncts);
        verifiedOnly = List.copyOf(verifiedOnly);
    }

    /** What the plan does with a conjunct. */
    public enum Role {
        /** Its index entries give the candidates. */
        DRIVE,
        /** Its index entries, as few as the driver's or fewer, narrow the candidates. */
        INTERSECT,
        /** Its index has more entries than the driver: verification decides it. */
        VERIFY,
        /** No index answers it (the reason says why): verification decides it. */
        NO_INDEX
    }

    /**
     * One path-value condition every result meets.
     *
     * @param condition  as an absolute path: {@code /atom:entry/atom:category[@scheme = 'S'][@term = 'T']}
     * @param index      the index used, or null
     * @param lookup     the lookup made ({@code category key 'S' = 'T'}), or the reason no index answers
     * @param entries    index entries read (an estimate: at least this many when not {@code exact})
     * @param documents  distinct documents under the folder among them (when {@code exact})
     * @param exact      whether every entry was read
     */
    public record Conjunct(String condition, String index, String lookup, Role role, long entries, long documents,
            boolean exact) {

        String text() {
            String what = switch (role) {
                case DRIVE -> "drive    ";
                case INTERSECT -> "intersect";
                case VERIFY -> "verify   ";
                case NO_INDEX -> "no index ";
            };
            if (index == null) {
                return what + " " + condition + "  (" + lookup + ")";
            }
            String est = exact ? entries + " entries, " + documents + " documents"
                    : "more than " + entries + " entries";
            return what + " " + condition + "  by " + lookup + "  (" + est + ")";
        }
    }

    /** The plan as lines of text, as {@code ./arno query --explain} prints it. */
    public String text() {
        StringBuilder b = new StringBuilder();
        b.append("  under ").append(under).append(scan ? ": scan of every document (no index narrows it)" : "")
                .append('\n');
        int n = 1;
        for (Conjunct c : conjuncts) {
            b.append("  ").append(c.role() == Role.NO_INDEX ? "-" : String.valueOf(n++)).append(". ").append(c.text())
                    .append('\n');
        }
        for (String v : verifiedOnly) {
            b.append("  -. verify    ").append(v).append('\n');
        }
        b.append("  every candidate is verified against the whole condition (compiled XPath)\n");
        return b.toString();
    }

    /** The plan as XML, as {@code store:explain} returns it (namespace {@value StoreFunctions#NS}). */
    String xml(Search.Stats stats, String condition) {
        ByteArrayOutputStream w = new ByteArrayOutputStream();
        XmlWriter x = new XmlWriter(w);
        x.start("plan").attr("xmlns", StoreFunctions.NS).attr("under", under).attr("scan", String.valueOf(scan));
        x.start("condition").text(condition).end();
        for (Conjunct c : conjuncts) {
            x.start("conjunct").attr("role", c.role().name().toLowerCase(Locale.ROOT).replace('_', '-'));
            if (c.index() != null) {
                x.attr("index", c.index()).attr("entries", String.valueOf(c.entries()))
                        .attr("exact", String.valueOf(c.exact()));
                if (c.exact()) {
                    x.attr("documents", String.valueOf(c.documents()));
                }
                x.attr("lookup", c.lookup());
            } else {
                x.attr("reason", c.lookup());
            }
            x.text(c.condition()).end();
        }
        for (String v : verifiedOnly) {
            x.start("verified").text(v).end();
        }
        if (stats != null) {
            x.start("candidates").text(String.valueOf(stats.candidates())).end();
            x.start("planning-ms").text(String.format(Locale.ROOT, "%.3f", stats.planNanos() / 1e6)).end();
        }
        x.end();
        x.flush();
        return w.toString(StandardCharsets.UTF_8);
    }
}
