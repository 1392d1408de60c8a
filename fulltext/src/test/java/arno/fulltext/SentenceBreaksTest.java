package arno.fulltext;

import static org.assertj.core.api.Assertions.assertThat;

import java.text.BreakIterator;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The breaks against a reference (a regular expression over the whole text), from every offset both ways. */
class SentenceBreaksTest {

    private static final Pattern END = Pattern.compile("[.?!]\\s+(?=[\\p{Lu}0-9])");

    private static TreeSet<Integer> reference(String text) {
        TreeSet<Integer> b = new TreeSet<>();
        b.add(0);
        b.add(text.length());
        Matcher m = END.matcher(text);
        while (m.find()) b.add(m.end());
        return b;
    }

    @Test
    void followingAndPrecedingAgreeWithTheReferenceAtEveryOffset() {
        String[] texts = {
            "Mean salinity reached 12.03 psu (n = 40; p < 0.03). However, the tide, e.g. the neap tide, varied. "
                    + "Why? 2019 was dry!  Data from the delta were used.\nThe end",
            "No break here at all",
            "",
            "Ends with a stop. ",
            ". Starts with one. A",
        };
        for (String t : texts) {
            TreeSet<Integer> ref = reference(t);
            BreakIterator b = new SentenceBreaks();
            b.setText(t);
            for (int i = 0; i <= t.length(); i++) {
                Integer next = ref.higher(i);
                Integer prev = ref.lower(i);
                assertThat(b.following(i)).as("following(%d) in '%s'", i, t).isEqualTo(next == null ? BreakIterator.DONE : next);
                assertThat(b.preceding(i)).as("preceding(%d) in '%s'", i, t).isEqualTo(prev == null ? BreakIterator.DONE : prev);
                assertThat(b.isBoundary(i)).as("isBoundary(%d)", i).isEqualTo(ref.contains(i));
            }
            // Walking forward and back visits the reference's breaks in order.
            TreeSet<Integer> walked = new TreeSet<>();
            for (int p = b.first(); p != BreakIterator.DONE; p = b.next()) walked.add(p);
            assertThat(walked).isEqualTo(ref);
            TreeSet<Integer> back = new TreeSet<>();
            for (int p = b.last(); p != BreakIterator.DONE; p = b.previous()) back.add(p);
            assertThat(back).isEqualTo(ref);
        }
    }

    @Test
    void abbreviationsAndDecimalsStayInTheirSentence() {
        String t = "We used e.g. the mean of 0.03 and 1.5. Then it rose.";
        TreeSet<Integer> breaks = new TreeSet<>();
        BreakIterator b = new SentenceBreaks();
        b.setText(t);
        for (int p = b.first(); p != BreakIterator.DONE; p = b.next()) breaks.add(p);
        assertThat(breaks).containsExactly(0, t.indexOf("Then"), t.length());
    }
}
