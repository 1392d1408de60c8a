package arno.batch;

import arno.xml.XmlWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XdmNodeKind;

/**
 * What one SVRL document says, in brief: the rules that fired, the failed
 * asserts and successful reports, each with its rule. SVRL lists fired rules in
 * document order, each followed by its findings, so a finding belongs to the
 * last {@code fired-rule} before it, which belongs to the last
 * {@code active-pattern} before that.
 */
record Svrl(long fired, long failedAsserts, long successfulReports,
            Map<RuleStats.Rule, RuleStats.Counts> perRule, List<Finding> findings) {
    static final String NS = "http://purl.oclc.org/dsdl/svrl";

    /** A failed assert or successful report, and the rule it belongs to. */
    record Finding(XdmNode node, RuleStats.Rule rule) {
        void write(XmlWriter xml) {
            String text = null;
            for (XdmNode child : node.children()) {
                if (child.getNodeKind() == XdmNodeKind.ELEMENT && "text".equals(child.getNodeName().getLocalName())) {
                    text = child.getStringValue().strip().replaceAll("\\s+", " ");
                }
            }
            xml.start(node.getNodeName().getLocalName()).attr("pattern", rule.pattern()).attr("rule", rule.rule())
                    .attr("context", rule.context()).attr("id", attr(node, "id")).attr("role", attr(node, "role"))
                    .attr("flag", attr(node, "flag")).attr("location", attr(node, "location"))
                    .attr("test", attr(node, "test")).text(text).end().newline();
        }
    }

    static Svrl summarize(XdmNode document) {
        XdmNode root = null;
        for (XdmNode child : document.children()) {
            if (child.getNodeKind() == XdmNodeKind.ELEMENT) root = child;
        }
        Map<RuleStats.Rule, RuleStats.Counts> perRule = new LinkedHashMap<>();
        List<Finding> findings = new ArrayList<>();
        String pattern = null;
        RuleStats.Rule rule = null;
        long fired = 0;
        long failed = 0;
        long reports = 0;
        if (root != null) {
            for (XdmNode child : root.children()) {
                if (child.getNodeKind() != XdmNodeKind.ELEMENT || !NS.equals(child.getNodeName().getNamespace())) continue;
                switch (child.getNodeName().getLocalName()) {
                    case "active-pattern" -> {
                        pattern = attr(child, "id");
                        if (pattern == null) pattern = attr(child, "name");
                        rule = null;
                    }
                    case "fired-rule" -> {
                        fired++;
                        rule = new RuleStats.Rule(pattern, attr(child, "id"), attr(child, "context"));
                        perRule.computeIfAbsent(rule, k -> new RuleStats.Counts()).fired++;
                    }
                    case "failed-assert", "successful-report" -> {
                        boolean assertion = "failed-assert".equals(child.getNodeName().getLocalName());
                        RuleStats.Rule r = rule != null ? rule : new RuleStats.Rule(pattern, null, null);
                        RuleStats.Counts c = perRule.computeIfAbsent(r, k -> new RuleStats.Counts());
                        if (assertion) {
                            failed++;
                            c.failedAsserts++;
                        } else {
                            reports++;
                            c.successfulReports++;
                        }
                        findings.add(new Finding(child, r));
                    }
                    default -> { }
                }
            }
        }
        return new Svrl(fired, failed, reports, perRule, findings);
    }

    /** Writes {@code <svrl>} with the counts and every finding. */
    void write(XmlWriter xml, String href) {
        xml.start("svrl").attr("href", href).attr("fired-rules", fired).attr("failed-asserts", failedAsserts)
                .attr("successful-reports", successfulReports).newline();
        for (Finding finding : findings) finding.write(xml);
        xml.end().newline();
    }

    private static String attr(XdmNode element, String name) {
        return element.getAttributeValue(new QName(name));
    }
}
