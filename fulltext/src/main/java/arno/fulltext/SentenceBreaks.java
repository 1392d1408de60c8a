package arno.fulltext;

import java.text.BreakIterator;
import java.text.CharacterIterator;
import java.text.StringCharacterIterator;

/**
 * Where snippets may start and end: after a full stop, question or exclamation mark followed by
 * white space and then a capital letter, a digit or the end ("… the estuary. Mean salinity …"),
 * so "e.g. the" and "0.03" stay whole. The JDK's sentence iterator walks the text through a
 * {@code CharacterIterator} one call per character: a sixth of a phrase's results page at a
 * million articles went to it (30 KB bodies, ten hits); this reads the string.
 */
final class SentenceBreaks extends BreakIterator {

    private String text = "";
    private int current;

    @Override
    public void setText(String newText) {
        text = newText;
        current = 0;
    }

    @Override
    public void setText(CharacterIterator it) {
        StringBuilder b = new StringBuilder(it.getEndIndex() - it.getBeginIndex());
        for (char c = it.first(); c != CharacterIterator.DONE; c = it.next()) b.append(c);
        setText(b.toString());
    }

    @Override
    public CharacterIterator getText() {
        return new StringCharacterIterator(text);
    }

    /** Whether a sentence starts at {@code i} (0 < i < length): white space before it, a sentence's end before that. */
    private boolean boundary(int i) {
        if (!Character.isWhitespace(text.charAt(i - 1))) return false;
        char c = text.charAt(i);
        if (Character.isWhitespace(c) || !(Character.isUpperCase(c) || Character.isDigit(c))) return false;
        int j = i - 1;
        while (j > 0 && Character.isWhitespace(text.charAt(j))) j--;
        char end = text.charAt(j);
        return end == '.' || end == '?' || end == '!';
    }

    @Override
    public int first() {
        return current = 0;
    }

    @Override
    public int last() {
        return current = text.length();
    }

    @Override
    public int current() {
        return current;
    }

    @Override
    public int next() {
        if (current >= text.length()) return DONE;
        int i = current + 1;
        while (i < text.length() && !boundary(i)) i++;
        return current = i;
    }

    @Override
    public int previous() {
        if (current <= 0) return DONE;
        int i = current - 1;
        while (i > 0 && !boundary(i)) i--;
        return current = i;
    }

    @Override
    public int next(int n) {
        int r = current;
        for (; n > 0 && r != DONE; n--) r = next();
        for (; n < 0 && r != DONE; n++) r = previous();
        return r;
    }

    @Override
    public int following(int offset) {
        checkOffset(offset);
        current = offset;
        if (offset >= text.length()) {
            current = text.length();
            return DONE;
        }
        return next();
    }

    @Override
    public int preceding(int offset) {
        checkOffset(offset);
        current = offset;
        if (offset <= 0) {
            current = 0;
            return DONE;
        }
        return previous();
    }

    @Override
    public boolean isBoundary(int offset) {
        checkOffset(offset);
        boolean b = offset == 0 || offset == text.length() || boundary(offset);
        current = b ? offset : following(offset);
        return b;
    }

    private void checkOffset(int offset) {
        if (offset < 0 || offset > text.length()) {
            throw new IllegalArgumentException("offset " + offset + " is outside the text (0 to " + text.length() + ")");
        }
    }
}
