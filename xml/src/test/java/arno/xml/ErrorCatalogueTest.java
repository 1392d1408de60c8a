package arno.xml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The one catalogue: every code's and every message's template is a sentence that formats with its values. */
class ErrorCatalogueTest {
    private static final Pattern SPECIFIER = Pattern.compile("%[-#+ 0,(<]*\\d*(\\.\\d+)?([a-zA-Z%])");

    /** Dummy values of the right kind for each specifier of {@code template}. */
    private static Object[] dummies(String template) {
        List<Object> values = new ArrayList<>();
        Matcher m = SPECIFIER.matcher(template);
        while (m.find()) {
            switch (m.group(2)) {
                case "%", "n" -> { }
                case "d", "x" -> values.add(7L);
                case "f", "e", "g" -> values.add(0.5);
                default -> values.add("VALUE" + values.size());
            }
        }
        return values.toArray();
    }

    @Test
    void everyTemplateFormatsWithItsValuesAndSaysSomething() {
        List<String> checked = new ArrayList<>();
        for (ErrorCode c : ErrorCode.values()) checked.add(check(c.name(), c.template(), c.arity(), c.format(dummies(c.template()))));
        for (ErrorMessage m : ErrorMessage.values()) {
            checked.add(check(m.name(), m.template(), m.arity(), m.format(dummies(m.template()))));
        }
        assertThat(checked).hasSize(ErrorCode.values().length + ErrorMessage.values().length);
    }

    private static String check(String name, String template, int arity, String formatted) {
        assertThat(arity).as(name).isEqualTo(dummies(template).length);
        for (int i = 0; i < arity; i++) assertThat(formatted).as(name).containsAnyOf("VALUE" + i, "7", "0.5");
        // a sentence, not a bare placeholder: words remain when the values are taken out
        assertThat(template.replaceAll("%[-#+ 0,(<]*\\d*(\\.\\d+)?[a-zA-Z%]", "")).as(name).containsPattern("[a-zA-Z]{3}");
        return formatted;
    }

    @Test
    void codesAreUniqueAndEveryMessageSaysSomethingNew() {
        Set<String> codes = new HashSet<>();
        for (ErrorCode c : ErrorCode.values()) {
            assertThat(codes.add(c.code())).as(c.code()).isTrue();
            assertThat(ErrorCode.byName(c.code())).isSameAs(c);
            assertThat(c.status()).isBetween(400, 599);
        }
        Set<String> templates = new HashSet<>();
        for (ErrorCode c : ErrorCode.values()) templates.add(c + " " + c.template());
        for (ErrorMessage m : ErrorMessage.values()) {
            assertThat(templates.add(m.code() + " " + m.template())).as("%s repeats a sentence of its code", m).isTrue();
            assertThat(m.code().messages()).contains(m);
        }
    }

    @Test
    void anErrorCarriesItsCodeAndSentence() {
        ArnoException e = ErrorMessage.NO_ACCOUNT.error("bob", "/data/accounts");
        assertThat(e.code()).isSameAs(ErrorCode.NOT_FOUND);
        assertThat(e.status()).isEqualTo(404);
        assertThat(e.getMessage()).isEqualTo("there is no account bob in /data/accounts ('./arno accounts list' shows them)");
        IllegalStateException cause = new IllegalStateException("x");
        assertThat(ErrorCode.NO_SITE.error(cause, "example.org", "/a").getCause()).isSameAs(cause);
    }

    @Test
    void aCallWithTheWrongNumberOfValuesFailsInTests() {
        assertThatThrownBy(() -> ErrorMessage.NO_ACCOUNT.error("bob"))
                .isInstanceOf(AssertionError.class).hasMessageContaining("NO_ACCOUNT takes 2 values, not 1");
        assertThatThrownBy(() -> ErrorCode.NO_SITE.error("a", "b", "c")).isInstanceOf(AssertionError.class);
    }

    @Test
    void numbersAreWrittenTheSameInEveryLocale() {
        java.util.Locale before = java.util.Locale.getDefault();
        try {
            java.util.Locale.setDefault(java.util.Locale.forLanguageTag("ar-EG-u-nu-arab"));
            assertThat(ErrorCode.BODY_TOO_LARGE.format("12", 10L)).endsWith("limit of 10 bytes");
        } finally {
            java.util.Locale.setDefault(before);
        }
    }
}
