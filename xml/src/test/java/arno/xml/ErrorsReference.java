package arno.xml;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes {@code docs/reference/errors.md}, the reference of every error, from the one catalogue:
 * each {@link ErrorCode}'s code, HTTP status, exit status and message template, with the sentence
 * of its javadoc and the group its {@code // ---- Heading} comment puts it in.
 * {@code ErrorsReferenceTest} fails while the committed file differs from what this writes.
 *
 * <p>Why a test class: the reference is documentation of the catalogue, not part of the product,
 * and the test that keeps it current needs it; a test-scope {@code main} keeps both out of the jar.
 * It reads what it can from the enum itself (values, codes, statuses) and only the prose from the
 * source file, so that a rewritten template or javadoc changes the page and nothing breaks it.
 */
public final class ErrorsReference {
    /** The generated page, relative to the repository's root. */
    public static final String PAGE = "docs/reference/errors.md";
    /** The catalogue's source, relative to the repository's root. */
    static final String SOURCE = "xml/src/main/java/arno/xml/ErrorCode.java";
    /**
     * How to write the page again, from the checkout's root; the test's failure message says it.
     * Plain java, not the exec plugin: it needs nothing Maven has not already fetched to build xml.
     */
    public static final String REGENERATE = "mvn -q -B -pl xml -am test-compile"
            + " && java -cp xml/target/classes:xml/target/test-classes arno.xml.ErrorsReference";

    private ErrorsReference() {}

    /** Rewrites the page under the repository's root (found from the working folder, or given as the one argument). */
    public static void main(String[] args) throws IOException {
        Path root = args.length > 0 ? Path.of(args[0]) : root();
        Path page = root.resolve(PAGE);
        Files.createDirectories(page.getParent());
        Files.writeString(page, render(root), StandardCharsets.UTF_8);
        System.out.println("wrote " + page);
    }

    /**
     * The repository's root: the nearest folder at or above the working folder that holds the
     * catalogue's source (Maven runs tests in the module's folder, a person runs this from anywhere in the checkout).
     */
    public static Path root() {
        Path here = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve(SOURCE))) return p;
        }
        throw new IllegalStateException("no " + SOURCE + " at or above " + here + "; run from inside the checkout");
    }

    /** The page, from the enum and the prose of its source under {@code root}. */
    public static String render(Path root) throws IOException {
        String source = Files.readString(root.resolve(SOURCE), StandardCharsets.UTF_8);
        Map<String, List<ErrorCode>> groups = new LinkedHashMap<>();
        Map<ErrorCode, String> when = new LinkedHashMap<>();
        for (ErrorCode c : ErrorCode.values()) {
            Declaration d = declaration(source, c.name());
            groups.computeIfAbsent(d.group(), g -> new ArrayList<>()).add(c);
            when.put(c, d.javadoc());
        }
        StringBuilder out = new StringBuilder();
        out.append("<!-- Generated from ").append(SOURCE).append(" by arno.xml.ErrorsReference (xml's test sources):"
                + " do not edit by hand. Regenerate it from the checkout's root with\n     ").append(REGENERATE).append("\n-->\n");
        out.append("# Errors\n\n");
        out.append("Every error Arno reports has one of these codes. Over HTTP it is an `err:error` document"
                + " (namespace `urn:arno:error`, schema `arno/schema/error.xsd` in `xml/`) with the code in `@code`"
                + " and the HTTP status in `@status`; on the command line it is one line `arno: MESSAGE` and the exit"
                + " status below. The message is the template with the values of the case put in (`%s` a text,"
                + " `%d` a number). A code is stable once released; its message may improve.\n\n");
        out.append("The catalogue is [`ErrorCode.java`](../../").append(SOURCE).append("); this page is written from it"
                + " ([how](../reference.md#errors)).\n");
        for (Map.Entry<String, List<ErrorCode>> g : groups.entrySet()) {
            out.append("\n## ").append(g.getKey()).append("\n\n");
            out.append("| code | HTTP status | exit status | message template | when |\n");
            out.append("| --- | --- | --- | --- | --- |\n");
            for (ErrorCode c : g.getValue()) {
                out.append("| `").append(c.code()).append("` | ").append(c.status()).append(" | ").append(c.exitStatus())
                        .append(" | ").append(codeSpan(template(c))).append(" | ").append(cell(when.get(c))).append(" |\n");
            }
        }
        out.append("\n## The sentences of each code\n\n");
        out.append("What a code says in each case: the sentences of [`ErrorMessage.java`](../../xml/src/main/java/arno/xml/"
                + "ErrorMessage.java), each a constant that names its code (the code's own template above is said when no"
                + " sentence of its own applies).\n");
        for (ErrorCode c : ErrorCode.values()) {
            List<ErrorMessage> said = c.messages();
            if (said.isEmpty()) continue;
            out.append("\n### `").append(c.code()).append("`\n\n");
            for (ErrorMessage m : said) {
                out.append("- `").append(m.name()).append("`: ").append(codeSpan(m.template())).append("\n");
            }
        }
        return out.toString();
    }

    /** A constant's group (its {@code // ---- Heading}) and the text of its javadoc, from the source. */
    record Declaration(String group, String javadoc) {}

    private static final Pattern HEADING = Pattern.compile("^\\s*//\\s*-{2,}\\s*(.+?)\\s*-*\\s*$", Pattern.MULTILINE);

    static Declaration declaration(String source, String name) {
        // The constant's declaration: its name at the start of a line, then '(' or ',' or ';' (a constant without arguments).
        Matcher at = Pattern.compile("^\\s*" + Pattern.quote(name) + "\\s*[(,;{]", Pattern.MULTILINE).matcher(source);
        if (!at.find()) return new Declaration("Errors", "");
        int start = at.start();
        String group = "Errors";
        Matcher h = HEADING.matcher(source);
        while (h.find() && h.start() < start) group = capitalised(h.group(1));
        // The javadoc right before it: the last "/** ... */" that ends before the declaration with only space between.
        String before = source.substring(0, start);
        int end = before.lastIndexOf("*/");
        String javadoc = "";
        if (end >= 0 && before.substring(end + 2).isBlank()) {
            int open = before.lastIndexOf("/**", end);
            if (open >= 0) javadoc = prose(before.substring(open + 3, end));
        }
        return new Declaration(group, javadoc);
    }

    /** Javadoc as one line of Markdown: stars and tags gone, {@code x} as `x`, {@link #X} as X. */
    static String prose(String javadoc) {
        String t = javadoc.replaceAll("(?m)^\\s*\\*\\s?", " ");
        t = t.replaceAll("\\{@(?:code|literal)\\s+([^}]*)}", "`$1`");
        t = t.replaceAll("\\{@link(?:plain)?\\s+#?([^}\\s]*)(?:\\s+([^}]*))?}", "$1");
        t = t.replace("``", ""); // two code spans side by side are one
        t = t.replaceAll("</?[a-zA-Z][^>]*>", " ");
        return t.replaceAll("\\s+", " ").strip();
    }

    /**
     * The code's message template. Read through the enum (a {@code template()} accessor, else its
     * {@code template} field, else its one other text field), so a rewritten template needs no change here.
     */
    static String template(ErrorCode c) {
        try {
            for (Method m : ErrorCode.class.getDeclaredMethods()) {
                if (m.getName().equals("template") && m.getParameterCount() == 0 && m.getReturnType() == String.class
                        && !Modifier.isStatic(m.getModifiers())) {
                    m.setAccessible(true);
                    return (String) m.invoke(c);
                }
            }
            Field named = null;
            List<Field> texts = new ArrayList<>();
            for (Field f : ErrorCode.class.getDeclaredFields()) {
                if (f.getType() != String.class || Modifier.isStatic(f.getModifiers())) continue;
                if (f.getName().equals("template")) named = f;
                f.setAccessible(true);
                if (!c.code().equals(f.get(c))) texts.add(f);
            }
            Field f = named != null ? named : texts.size() == 1 ? texts.get(0) : null;
            if (f == null) {
                throw new IllegalStateException("ErrorCode has no template() and no single template field any more;"
                        + " teach ErrorsReference.template where the message templates are");
            }
            f.setAccessible(true);
            return (String) f.get(c);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + c + "'s template: " + e, e);
        }
    }

    /** Text as a Markdown code span inside a table cell. */
    static String codeSpan(String text) {
        String t = cell(text);
        if (t.isEmpty()) return "";
        String fence = t.contains("`") ? "``" : "`";
        String pad = t.startsWith("`") || t.endsWith("`") || fence.length() > 1 ? " " : "";
        return fence + pad + t + pad + fence;
    }

    /** Text inside a table cell: one line, pipes escaped. */
    static String cell(String text) {
        return text == null ? "" : text.replaceAll("\\s*\\R\\s*", " ").replace("|", "\\|").strip();
    }

    private static String capitalised(String heading) {
        return heading.isEmpty() ? heading : Character.toUpperCase(heading.charAt(0)) + heading.substring(1);
    }
}
