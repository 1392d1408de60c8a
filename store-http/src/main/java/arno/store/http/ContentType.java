package arno.store.http;

import arno.xml.ErrorMessage;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A request's {@code Content-Type}, read as RFC 9110 8.3.1 writes it: {@code type "/" subtype}
 * (tokens), then parameters, which are left to whoever needs one. A header that is there but is no
 * media type ({@code ;}, {@code image}, {@code /png}) is the client's mistake: 400 naming it.
 */
final class ContentType {
    private static final Pattern ESSENCE = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+/[!#$%&'*+.^_`|~0-9A-Za-z-]+");

    private ContentType() {
    }

    /** The type and subtype in lower case ({@code image/png}); null when the header is absent or blank. */
    static String essence(String header) {
        if (header == null || header.isBlank()) return null;
        int semi = header.indexOf(';');
        String essence = (semi >= 0 ? header.substring(0, semi) : header).strip();
        if (!ESSENCE.matcher(essence).matches()) {
            throw ErrorMessage.NOT_MEDIA_TYPE.error(header);
        }
        return essence.toLowerCase(Locale.ROOT);
    }
}
