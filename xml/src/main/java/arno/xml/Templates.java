package arno.xml;

import java.util.Arrays;
import java.util.IllegalFormatException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Counting and filling the {@link java.util.Formatter} templates of {@link ErrorCode} and {@link ErrorMessage}. */
final class Templates {
    private static final Pattern SPECIFIER = Pattern.compile("%(\\d+\\$)?[-#+ 0,(<]*\\d*(\\.\\d+)?([tT]?[a-zA-Z%])");

    private Templates() {
    }

    /** How many values {@code template} takes: its specifiers, {@code %%} and {@code %n} aside. */
    static int arity(String template) {
        int count = 0;
        Matcher m = SPECIFIER.matcher(template);
        while (m.find()) {
            String conversion = m.group(3);
            if (!conversion.equals("%") && !conversion.equals("n")) count++;
        }
        return count;
    }

    /**
     * The template filled with {@code args}, independent of the default locale. A call with the
     * wrong number of values is a bug that the assertion shows in tests; in production the
     * message is still made (the template and the values as given), so the error itself is never lost.
     */
    static String format(Object owner, String template, int arity, Object[] args) {
        assert args.length == arity : owner + " takes " + arity + " values, not " + args.length + ": " + template;
        try {
            return String.format(Locale.ROOT, template, args);
        } catch (IllegalFormatException e) {
            return template + " " + Arrays.toString(args);
        }
    }
}
