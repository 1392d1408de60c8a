package arno.xml;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/reference/errors.md is what {@link ErrorsReference} writes from the catalogue, and says what it should. */
class ErrorsReferenceTest {

    @Test
    void theCommittedPageIsTheGeneratedOne() throws Exception {
        Path root = ErrorsReference.root();
        Path page = root.resolve(ErrorsReference.PAGE);
        String generated = ErrorsReference.render(root);
        assertThat(Files.isRegularFile(page))
                .withFailMessage("%s is missing; write it with:%n  %s", ErrorsReference.PAGE, ErrorsReference.REGENERATE)
                .isTrue();
        String committed = Files.readString(page, StandardCharsets.UTF_8).replace("\r\n", "\n");
        if (!committed.equals(generated)) {
            throw new AssertionError(ErrorsReference.PAGE + " differs from what ErrorCode.java makes of it ("
                    + firstDifference(committed, generated) + "); regenerate it with:\n  " + ErrorsReference.REGENERATE);
        }
    }

    @Test
    void everyCodeIsThereWithItsStatusAndTemplate() throws Exception {
        String page = ErrorsReference.render(ErrorsReference.root());
        for (ErrorCode c : ErrorCode.values()) {
            String row = page.lines().filter(l -> l.startsWith("| `" + c.code() + "` |")).findFirst()
                    .orElseThrow(() -> new AssertionError("no row for " + c.code()));
            assertThat(row).contains("| " + c.status() + " | " + c.exitStatus() + " |");
            assertThat(row).contains(ErrorsReference.cell(ErrorsReference.template(c)));
        }
        assertThat(page).contains("[`ErrorCode.java`](../../" + ErrorsReference.SOURCE + ")");
    }

    @Test
    void groupsAndSentencesComeFromTheSource() {
        String source = """
                public enum ErrorCode {
                    // ---- Any request
                    /** The request cannot be understood. */
                    BAD_REQUEST(400, "bad-request", "Malformed request: %s"),
                    NO_JAVADOC(400, "no-javadoc", "%s"),

                    // ---- the store
                    /**
                     * Another process holds the store; the answer carries {@code Retry-After}.
                     */
                    STORE_LOCKED(503, "store-locked", "%s");
                }
                """;
        assertThat(ErrorsReference.declaration(source, "BAD_REQUEST"))
                .isEqualTo(new ErrorsReference.Declaration("Any request", "The request cannot be understood."));
        assertThat(ErrorsReference.declaration(source, "NO_JAVADOC")).isEqualTo(new ErrorsReference.Declaration("Any request", ""));
        assertThat(ErrorsReference.declaration(source, "STORE_LOCKED")).isEqualTo(new ErrorsReference.Declaration("The store",
                "Another process holds the store; the answer carries `Retry-After`."));
        assertThat(ErrorsReference.declaration(source, "MISSING")).isEqualTo(new ErrorsReference.Declaration("Errors", ""));
    }

    @Test
    void markupThatWouldBreakATableIsEscaped() {
        assertThat(ErrorsReference.codeSpan("a | b")).isEqualTo("`a \\| b`");
        assertThat(ErrorsReference.codeSpan("say `x`")).isEqualTo("`` say `x` ``");
        assertThat(ErrorsReference.prose("\n * The {@link #USAGE} code, {@code a}{@code b}.\n * <p>Next.\n ")).isEqualTo("The USAGE code, `ab`. Next.");
    }

    /** Where two texts part, as a line number and both lines, so the failure says what changed. */
    private static String firstDifference(String committed, String generated) {
        String[] a = committed.split("\n", -1);
        String[] b = generated.split("\n", -1);
        for (int i = 0; i < Math.max(a.length, b.length); i++) {
            String x = i < a.length ? a[i] : "(end of file)";
            String y = i < b.length ? b[i] : "(end of file)";
            if (!x.equals(y)) return "line " + (i + 1) + ": the file has \"" + x + "\", the catalogue makes \"" + y + "\"";
        }
        return "same lines";
    }
}
