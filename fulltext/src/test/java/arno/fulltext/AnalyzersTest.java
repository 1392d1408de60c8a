package arno.fulltext;

import static org.assertj.core.api.Assertions.assertThat;

import arno.xml.XmlPolicy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;
import org.junit.jupiter.api.Test;

/** What the configured analyzers make of text: the words a field indexes, against the words written out by hand. */
class AnalyzersTest {

    /** The tokens of {@code text} in {@code field}, a gap (a word left out) shown as "_". */
    static List<String> tokens(Analyzer a, String field, String text) throws IOException {
        List<String> out = new ArrayList<>();
        try (TokenStream t = a.tokenStream(field, text)) {
            CharTermAttribute term = t.addAttribute(CharTermAttribute.class);
            PositionIncrementAttribute inc = t.addAttribute(PositionIncrementAttribute.class);
            t.reset();
            while (t.incrementToken()) {
                for (int i = 1; i < inc.getPositionIncrement(); i++) out.add("_");
                out.add(term.toString());
            }
            t.end();
        }
        return out;
    }

    @Test
    void theDemosBodyLeavesOutBareNumbersButYearsAndKeepsWordsWithDigits() throws IOException {
        FulltextConfig demo = FulltextConfig.parse(FulltextConfig.defaultXml(), "default-fulltext.xml", XmlPolicy.DEFAULT);
        assertThat(demo.field("body").numbers()).isEqualTo(FulltextConfig.Numbers.YEARS);
        assertThat(demo.field("title").numbers()).isEqualTo(FulltextConfig.Numbers.ALL);
        try (Analyzer a = Analyzers.of(demo)) {
            String text = "Nitrate rose by 21% (n = 404; p < 0.03) in 2019 [14, 11], 1,000 wells; CO2 and H1N1";
            assertThat(tokens(a, "body", text))
                    .containsExactly("nitrat", "rose", "_", "_", "n", "_", "p", "_", "_", "2019", "_", "_", "_", "well", "co2", "_", "h1n1");
            // Another field of the same configuration keeps its numbers.
            assertThat(tokens(a, "title", "404 wells in 2019")).containsExactly("404", "well", "_", "2019");
        }
    }

    @Test
    void theEnglishStopListLeavesOutTheFunctionWordsLucenesOwnKeeps() throws IOException {
        try (Analyzer a = Analyzers.text("english", true, FulltextConfig.Numbers.ALL)) {
            assertThat(tokens(a, "f", "We were told which data from the wells have been used"))
                    .containsExactly("_", "_", "told", "_", "data", "_", "_", "well", "_", "_", "us");
            // A phrase keeps the place of a word left out, so "role of water" never matches "role water".
            assertThat(tokens(a, "f", "the role of water")).containsExactly("_", "role", "_", "water");
        }
    }
}
