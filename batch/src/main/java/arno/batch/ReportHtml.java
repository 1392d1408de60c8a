package arno.batch;

import arno.xml.ArnoException;
import arno.xml.ErrorXml;
import arno.xml.Where;
import arno.xml.XmlWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * The report as a page a person can read, rendered from the XML report as a
 * stream (StAX in, HTML out), so a report of any size renders in constant
 * memory and a running job's report renders as far as it goes.
 *
 * <p>Two passes over the report: the first gathers the totals and, for a
 * Schematron job, the findings per rule, which the page shows first; the second
 * writes one table row per transformation, with its messages (their XML shown
 * as XML), errors, result documents and findings. With {@code onlyFailed}, only
 * failed transformations get a row.
 */
final class ReportHtml {
    private ReportHtml() {}

    /** Per-rule counts from the first pass. */
    private static final class RuleRow {
        Long fired;
        long failedAsserts;
        long successfulReports;
        long inputs;
    }

    private static final class Overview {
        final Map<String, String> report = new TreeMap<>();
        final Map<String, String> totals = new TreeMap<>();
        final Map<RuleStats.Rule, RuleRow> rules = new TreeMap<>();
        boolean summaryFound;
        long transformations;
        long failed;
        String stylesheetError;
    }

    static void render(Supplier<InputStream> report, OutputStream out, boolean onlyFailed, String statusLine)
            throws IOException {
        Overview overview;
        try (InputStream in = report.get()) {
            overview = overview(in);
        } catch (XMLStreamException e) {
            throw new IOException("the report cannot be read: " + e.getMessage(), e);
        }
        XmlWriter h = new XmlWriter(out);
        h.flush();
        out.write("<!DOCTYPE html>\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        String title = "Batch " + overview.report.getOrDefault("job", "")
                + (overview.report.containsKey("name") ? " — " + overview.report.get("name") : "");
        h.start("html").attr("lang", "en").start("head").start("meta").attr("charset", "utf-8").end()
                .element("title", title).start("style").text(CSS).end().end().newline();
        h.start("body").element("h1", title);
        h.start("p").attr("class", "meta").text(overview.report.getOrDefault("kind", "") + " "
                + overview.report.getOrDefault("stylesheet", "") + " · " + overview.report.getOrDefault("inputs", "?")
                + " inputs · submitted " + overview.report.getOrDefault("submitted", "")).end().newline();
        h.start("p").attr("class", "status").text(statusLine).end().newline();
        if (overview.stylesheetError != null) {
            h.start("p").attr("class", "failed").text(overview.stylesheetError).end().newline();
        }
        totals(h, overview);
        rules(h, overview);
        h.element("h2", onlyFailed ? "Failed transformations" : "Transformations");
        h.start("table").attr("class", "runs").start("thead").start("tr");
        for (String th : new String[] {"#", "input", "output", "status", "start", "ms", "details"}) h.element("th", th);
        h.end().end().newline().start("tbody").newline();
        try (InputStream in = report.get()) {
            rows(in, h, onlyFailed);
        } catch (XMLStreamException e) {
            h.start("tr").start("td").attr("colspan", 7).attr("class", "failed")
                    .text("the report cannot be read further: " + e.getMessage()).end().end();
        }
        h.end().end().newline();
        h.end().end().newline();
        h.finish();
    }

    private static Overview overview(InputStream in) throws XMLStreamException {
        Overview o = new Overview();
        XMLStreamReader r = arno.xml.XmlPolicy.streamOwn(in);
        int depth = 0;
        boolean inSummary = false;
        String inputWithFinding = null;
        java.util.Set<RuleStats.Rule> rulesThisInput = new java.util.HashSet<>();
        while (r.hasNext()) {
            int event = r.next();
            if (event == XMLStreamConstants.END_ELEMENT) {
                if (depth == 2 && "schematron-summary".equals(r.getLocalName())) inSummary = false;
                depth--;
                continue;
            }
            if (event != XMLStreamConstants.START_ELEMENT) continue;
            depth++;
            String name = r.getLocalName();
            if (depth == 1) {
                attributes(r, o.report);
            } else if (depth == 2) {
                switch (name) {
                    case "transformation" -> {
                        o.transformations++;
                        if (!"ok".equals(r.getAttributeValue(null, "status"))) o.failed++;
                        rulesThisInput.clear();
                        inputWithFinding = r.getAttributeValue(null, "index");
                    }
                    case "totals" -> attributes(r, o.totals);
                    case "schematron-summary" -> {
                        inSummary = true;
                        o.summaryFound = true;
                        o.rules.clear();
                    }
                    case "error" -> {
                        if (ErrorXml.NS.equals(r.getNamespaceURI())) {
                            o.stylesheetError = "The job failed: " + oneLine(ErrorXml.read(r, null));
                            depth--;
                        }
                    }
                    default -> { }
                }
            } else if (inSummary && depth == 3 && "rule".equals(name)) {
                RuleRow row = new RuleRow();
                row.fired = number(r, "fired");
                row.failedAsserts = number(r, "failed-asserts");
                row.successfulReports = number(r, "successful-reports");
                row.inputs = number(r, "inputs");
                o.rules.put(new RuleStats.Rule(r.getAttributeValue(null, "pattern"), r.getAttributeValue(null, "id"),
                        r.getAttributeValue(null, "context")), row);
            } else if (!o.summaryFound && depth == 4
                    && ("failed-assert".equals(name) || "successful-report".equals(name))) {
                RuleStats.Rule rule = new RuleStats.Rule(r.getAttributeValue(null, "pattern"),
                        r.getAttributeValue(null, "rule"), r.getAttributeValue(null, "context"));
                RuleRow row = o.rules.computeIfAbsent(rule, k -> new RuleRow());
                if ("failed-assert".equals(name)) row.failedAsserts++; else row.successfulReports++;
                if (inputWithFinding != null && rulesThisInput.add(rule)) row.inputs++;
            }
        }
        return o;
    }

    /** An error in one line, its reasons after semicolons: the page's summary has room for no more. */
    private static String oneLine(ArnoException e) {
        return e.describe().replace("\n  ", "; ");
    }

    private static long number(XMLStreamReader r, String attribute) {
        String v = r.getAttributeValue(null, attribute);
        try {
            return v == null ? 0 : Long.parseLong(v);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static void attributes(XMLStreamReader r, Map<String, String> into) {
        for (int i = 0; i < r.getAttributeCount(); i++) into.put(r.getAttributeLocalName(i), r.getAttributeValue(i));
    }

    private static void totals(XmlWriter h, Overview o) {
        h.start("table").attr("class", "totals").start("tr");
        if (o.totals.isEmpty()) {
            h.element("th", "done so far").element("td", Long.toString(o.transformations))
                    .element("th", "failed").start("td").attr("class", o.failed > 0 ? "failed" : null)
                    .text(Long.toString(o.failed)).end();
        } else {
            for (String key : new String[] {"inputs", "succeeded", "failed", "not-run", "seconds", "rate"}) {
                String v = o.totals.get(key);
                h.element("th", key).start("td")
                        .attr("class", "failed".equals(key) && !"0".equals(v) ? "failed" : null).text(v).end();
            }
        }
        h.end().end().newline();
    }

    private static void rules(XmlWriter h, Overview o) {
        if (o.rules.isEmpty() && !"schematron".equals(o.report.get("kind"))) return;
        h.element("h2", "Schematron rules");
        if (o.rules.isEmpty()) {
            h.element("p", "No failed asserts and no successful reports so far.");
            return;
        }
        h.start("table").attr("class", "rules").start("thead").start("tr");
        for (String th : new String[] {"pattern", "rule", "context", "fired", "failed asserts", "successful reports",
                "inputs with findings"}) {
            h.element("th", th);
        }
        h.end().end().start("tbody").newline();
        for (Map.Entry<RuleStats.Rule, RuleRow> e : o.rules.entrySet()) {
            RuleRow row = e.getValue();
            h.start("tr").element("td", e.getKey().pattern()).element("td", e.getKey().rule())
                    .start("td").start("code").text(e.getKey().context()).end().end()
                    .element("td", row.fired == null ? "" : row.fired.toString())
                    .start("td").attr("class", row.failedAsserts > 0 ? "failed" : null)
                    .text(Long.toString(row.failedAsserts)).end()
                    .element("td", Long.toString(row.successfulReports))
                    .element("td", Long.toString(row.inputs)).end().newline();
        }
        h.end().end().newline();
    }

    private static void rows(InputStream in, XmlWriter h, boolean onlyFailed) throws XMLStreamException {
        XMLStreamReader r = arno.xml.XmlPolicy.streamOwn(in);
        int depth = 0;
        while (r.hasNext()) {
            int event = r.next();
            if (event == XMLStreamConstants.START_ELEMENT) {
                depth++;
                if (depth == 2 && "transformation".equals(r.getLocalName())) {
                    boolean ok = "ok".equals(r.getAttributeValue(null, "status"));
                    if (onlyFailed && ok) {
                        skip(r);
                    } else {
                        row(r, h, ok);
                    }
                    depth--;
                } else if (depth == 2 && ("run".equals(r.getLocalName()) || "cancelled".equals(r.getLocalName()))) {
                    String text = "run".equals(r.getLocalName())
                            ? ("true".equals(r.getAttributeValue(null, "resumed")) ? "resumed " : "started ")
                              + r.getAttributeValue(null, "start") + " with " + r.getAttributeValue(null, "parallelism")
                              + " in parallel"
                            : "cancelled " + r.getAttributeValue(null, "at") + "; under way then (they finished): "
                              + r.getAttributeValue(null, "under-way");
                    h.start("tr").attr("class", "event").start("td").attr("colspan", 7).text(text).end().end().newline();
                }
            } else if (event == XMLStreamConstants.END_ELEMENT) {
                depth--;
            }
        }
    }

    private static void skip(XMLStreamReader r) throws XMLStreamException {
        int depth = 1;
        while (depth > 0 && r.hasNext()) {
            int event = r.next();
            if (event == XMLStreamConstants.START_ELEMENT) depth++;
            else if (event == XMLStreamConstants.END_ELEMENT) depth--;
        }
    }

    /** The output, with the store version its store outputs were committed at. */
    private static String output(String output, String storeVersion) {
        if (output == null) return null;
        return storeVersion == null ? output : output + " (store version " + storeVersion + ")";
    }

    /** One transformation: attributes in cells, children in the details cell. Leaves r at its end tag. */
    private static void row(XMLStreamReader r, XmlWriter h, boolean ok) throws XMLStreamException {
        h.start("tr").attr("class", ok ? "ok" : "failed")
                .element("td", r.getAttributeValue(null, "index"))
                .element("td", r.getAttributeValue(null, "input"))
                .element("td", output(r.getAttributeValue(null, "output"), r.getAttributeValue(null, "store-version")))
                .element("td", r.getAttributeValue(null, "status")
                        + ("true".equals(r.getAttributeValue(null, "after-cancel")) ? " (after cancel)" : ""))
                .element("td", r.getAttributeValue(null, "start"))
                .element("td", r.getAttributeValue(null, "duration-ms"))
                .start("td").attr("class", "details");
        int depth = 1;
        while (depth > 0 && r.hasNext()) {
            int event = r.next();
            if (event == XMLStreamConstants.END_ELEMENT) {
                depth--;
                continue;
            }
            if (event != XMLStreamConstants.START_ELEMENT) continue;
            String name = r.getLocalName();
            switch (name) {
                case "message" -> {
                    String where = location(r);
                    boolean terminate = "true".equals(r.getAttributeValue(null, "terminate"));
                    h.start("div").attr("class", terminate ? "message terminate" : "message")
                            .start("span").attr("class", "label").text((terminate ? "message (terminate) " : "message ") + where)
                            .end().start("pre").text(markup(r)).end().end();
                }
                case "error" -> {
                    ArnoException f = ErrorXml.read(r, null);
                    String at = f.where().toString();
                    String code = f.code().code() + (f.processorCode() == null ? "" : " " + f.processorCode());
                    h.start("div").attr("class", "error").start("span").attr("class", "label")
                            .text("error " + code + (at.isEmpty() ? "" : " (" + at + ")")).end()
                            .text(" " + f.getMessage());
                    for (ArnoException.Detail d : f.details()) h.start("div").attr("class", "detail").text(d.toString()).end();
                    h.end();
                }
                case "warning" -> {
                    String where = location(r);
                    String code = r.getAttributeValue(null, "code");
                    h.start("div").attr("class", name).start("span").attr("class", "label")
                            .text(name + (code != null ? " " + code : "") + " " + where).end()
                            .text(" " + r.getElementText()).end();
                }
                case "result-document" -> {
                    h.start("div").attr("class", "result").text("result document " + r.getAttributeValue(null, "href")).end();
                    skip(r);
                }
                case "svrl" -> {
                    h.start("div").attr("class", "svrl").text(r.getAttributeValue(null, "failed-asserts") + " failed asserts, "
                            + r.getAttributeValue(null, "successful-reports") + " successful reports, "
                            + r.getAttributeValue(null, "fired-rules") + " rules fired").end();
                    depth++;
                }
                case "failed-assert", "successful-report" -> {
                    String rule = r.getAttributeValue(null, "rule") != null ? r.getAttributeValue(null, "rule")
                            : r.getAttributeValue(null, "context");
                    String location = r.getAttributeValue(null, "location");
                    h.start("div").attr("class", name).start("span").attr("class", "label")
                            .text(("failed-assert".equals(name) ? "assert failed" : "report") + " [" + rule + "] ")
                            .end().text(r.getElementText()).start("code").text(" " + (location == null ? "" : location))
                            .end().end();
                }
                default -> skip(r);
            }
        }
        h.end().end().newline();
    }

    /** The place of a message or warning (its system-id, line and column attributes), as {@link Where} writes it. */
    private static String location(XMLStreamReader r) {
        String at = Where.at(r.getAttributeValue(null, "system-id"), (int) number(r, "line"),
                (int) number(r, "column")).toString();
        return at.isEmpty() ? "" : "(" + at + ")";
    }

    /** The content of the current element as XML text (for a message's content), leaving r at its end tag. */
    private static String markup(XMLStreamReader r) throws XMLStreamException {
        StringBuilder s = new StringBuilder();
        int depth = 1;
        boolean open = false;
        while (depth > 0 && r.hasNext()) {
            int event = r.next();
            switch (event) {
                case XMLStreamConstants.START_ELEMENT -> {
                    if (open) s.append('>');
                    depth++;
                    s.append('<').append(qname(r.getPrefix(), r.getLocalName()));
                    for (int i = 0; i < r.getNamespaceCount(); i++) {
                        String p = r.getNamespacePrefix(i);
                        s.append(p == null || p.isEmpty() ? " xmlns" : " xmlns:" + p).append("=\"")
                                .append(escape(r.getNamespaceURI(i))).append('"');
                    }
                    for (int i = 0; i < r.getAttributeCount(); i++) {
                        s.append(' ').append(qname(r.getAttributePrefix(i), r.getAttributeLocalName(i))).append("=\"")
                                .append(escape(r.getAttributeValue(i))).append('"');
                    }
                    open = true;
                }
                case XMLStreamConstants.END_ELEMENT -> {
                    depth--;
                    if (depth == 0) break;
                    if (open) {
                        s.append("/>");
                        open = false;
                    } else {
                        s.append("</").append(qname(r.getPrefix(), r.getLocalName())).append('>');
                    }
                }
                case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA, XMLStreamConstants.SPACE -> {
                    if (open) {
                        s.append('>');
                        open = false;
                    }
                    s.append(escape(r.getText()));
                }
                default -> { }
            }
            if (s.length() > 100_000) {
                s.append(" …");
                skipRest(r, depth);
                break;
            }
        }
        return s.toString();
    }

    private static void skipRest(XMLStreamReader r, int depth) throws XMLStreamException {
        while (depth > 0 && r.hasNext()) {
            int event = r.next();
            if (event == XMLStreamConstants.START_ELEMENT) depth++;
            else if (event == XMLStreamConstants.END_ELEMENT) depth--;
        }
    }

    private static String qname(String prefix, String local) {
        return prefix == null || prefix.isEmpty() ? local : prefix + ":" + local;
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace("\"", "&quot;");
    }

    private static final String CSS = """
            body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
            table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{border:1px solid #ccc;padding:.25em .5em;vertical-align:top;text-align:left}
            th{background:#f3f3f3}.failed{color:#a00;font-weight:600}tr.failed td:first-child{border-left:4px solid #a00}
            tr.event td{background:#f8f8ff;color:#555;font-style:italic}.label{color:#555;font-size:90%}
            pre{margin:.2em 0;white-space:pre-wrap;background:#fafafa;padding:.3em}.details div{margin:.2em 0}
            .failed-assert{color:#a00}.successful-report{color:#05a}.meta,.status{color:#555}
            """;
}
