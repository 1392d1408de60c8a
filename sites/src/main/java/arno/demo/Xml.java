package arno.demo;

/**
 * Appends XML to a StringBuilder. The generator writes text straight into builders rather than
 * through a DOM or StAX writer: output is a few hundred megabytes for large runs, and a builder
 * keeps it allocation-light and byte-for-byte deterministic (no writer-chosen quoting or
 * namespace declarations).
 */
final class Xml {
  private Xml() {}

  /** Escapes text for element content and for double-quoted attribute values alike. */
  static String esc(String s) {
    StringBuilder b = null;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      String r = switch (c) {
        case '&' -> "&amp;";
        case '<' -> "&lt;";
        case '>' -> "&gt;";
        case '"' -> "&quot;";
        default -> null;
      };
      if (r != null) {
        if (b == null) {
          b = new StringBuilder(s.length() + 16).append(s, 0, i);
        }
        b.append(r);
      } else if (b != null) {
        b.append(c);
      }
    }
    return b == null ? s : b.toString();
  }

  /** {@code <name>text</name>} with the text escaped. */
  static StringBuilder el(StringBuilder b, String name, String text) {
    return b.append('<').append(name).append('>').append(esc(text)).append("</").append(name).append('>');
  }
}
