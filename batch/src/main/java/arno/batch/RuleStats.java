package arno.batch;

import arno.xml.XmlWriter;
import java.util.Map;
import java.util.TreeMap;

/**
 * Schematron results aggregated per rule over a whole job: how often each rule
 * fired, how many of its asserts failed and reports succeeded, and on how many
 * inputs it found something. Bounded by the number of rules in the schema, not
 * by the number of inputs. Thread-safe: workers add concurrently.
 */
final class RuleStats {
    /** A rule as SVRL names it: the pattern's id and the rule's id, else its context. */
    record Rule(String pattern, String rule, String context) implements Comparable<Rule> {
        @Override public int compareTo(Rule o) {
            int c = nz(pattern).compareTo(nz(o.pattern));
            if (c != 0) return c;
            c = nz(rule).compareTo(nz(o.rule));
            return c != 0 ? c : nz(context).compareTo(nz(o.context));
        }

        private static String nz(String s) {
            return s == null ? "" : s;
        }
    }

    static final class Counts {
        long fired;
        long failedAsserts;
        long successfulReports;
        long inputs;
    }

    private final Map<Rule, Counts> rules = new TreeMap<>();

    /** Adds one input's results: fired rules and findings, each keyed by rule. */
    synchronized void add(Map<Rule, Counts> perInput) {
        for (Map.Entry<Rule, Counts> e : perInput.entrySet()) {
            Counts total = rules.computeIfAbsent(e.getKey(), k -> new Counts());
            Counts c = e.getValue();
            total.fired += c.fired;
            total.failedAsserts += c.failedAsserts;
            total.successfulReports += c.successfulReports;
            if (c.failedAsserts + c.successfulReports > 0) total.inputs++;
        }
    }

    synchronized boolean isEmpty() {
        return rules.isEmpty();
    }

    /** Writes {@code <schematron-summary>} with one {@code <rule>} per rule. */
    synchronized void write(XmlWriter xml) {
        long failed = 0;
        long reports = 0;
        for (Counts c : rules.values()) {
            failed += c.failedAsserts;
            reports += c.successfulReports;
        }
        xml.start("schematron-summary").attr("rules", rules.size())
                .attr("failed-asserts", failed).attr("successful-reports", reports).newline();
        for (Map.Entry<Rule, Counts> e : rules.entrySet()) {
            Rule r = e.getKey();
            Counts c = e.getValue();
            xml.start("rule").attr("pattern", r.pattern()).attr("id", r.rule()).attr("context", r.context())
                    .attr("fired", c.fired).attr("failed-asserts", c.failedAsserts)
                    .attr("successful-reports", c.successfulReports).attr("inputs", c.inputs).end().newline();
        }
        xml.end().newline();
    }
}
