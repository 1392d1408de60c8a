package arno.xml;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** XML 1.0's Char production, on strings and on UTF-8 bytes, against every code point. */
class XmlCharsTest {
    @Test void theStringAndTheUtf8ChecksAgreeWithTheProductionOnEveryCodePoint() {
        for (int c = 0; c <= 0x10FFFF; c++) {
            boolean production = c == 0x9 || c == 0xA || c == 0xD || c >= 0x20 && c <= 0xD7FF
                    || c >= 0xE000 && c <= 0xFFFD || c >= 0x10000;
            assertThat(XmlChars.allowed(c)).as("U+%04X", c).isEqualTo(production);
            if (Character.isSurrogate((char) c) && c <= 0xFFFF) continue; // not encodable alone in UTF-8
            String s = "a" + new String(Character.toChars(c)) + "b";
            assertThat(XmlChars.firstDisallowed(s)).as("U+%04X", c).isEqualTo(production ? -1 : 1);
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            int at = XmlChars.firstDisallowedUtf8(b, 0, b.length);
            assertThat(at).as("U+%04X", c).isEqualTo(production ? -1 : 1);
            if (!production) assertThat(XmlChars.codePointAtUtf8(b, at)).isEqualTo(c);
        }
    }

    @Test void unpairedSurrogatesAreRefusedAndMessagesNameTheCharacter() {
        assertThat(XmlChars.firstDisallowed("x\uD800")).isEqualTo(1);
        assertThat(XmlChars.firstDisallowed("\uDC00x")).isEqualTo(0);
        assertThat(XmlChars.firstDisallowed("\uD83D\uDE00")).isEqualTo(-1);
        // CESU-style bytes of a surrogate (ED A0 80) are refused as bytes
        assertThat(XmlChars.firstDisallowedUtf8(new byte[] {'x', (byte) 0xED, (byte) 0xA0, (byte) 0x80}, 0, 4)).isEqualTo(1);
        assertThat(XmlChars.problem("bad\u0001title")).isEqualTo("U+0001 at character 4");
        assertThat(XmlChars.problem("fine")).isNull();
        assertThat(XmlChars.problem(null)).isNull();
        assertThat(XmlChars.quote("bad\u0001title\uFFFF")).isEqualTo("bad[U+0001]title[U+FFFF]");
    }
}
