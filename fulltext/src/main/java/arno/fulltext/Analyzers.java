package arno.fulltext;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.FilteringTokenFilter;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.core.KeywordTokenizer;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.fr.FrenchAnalyzer;
import org.apache.lucene.analysis.fr.FrenchLightStemFilter;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.apache.lucene.analysis.miscellaneous.PerFieldAnalyzerWrapper;
import org.apache.lucene.analysis.miscellaneous.TrimFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.util.ElisionFilter;

/** The analyzers a configuration names, one per field, as one analyzer for the index and its queries. */
final class Analyzers {

    private Analyzers() {
    }

    /** Per field: text fields by their analyzer and folding, keyword fields as one lower-cased token. */
    static Analyzer of(FulltextConfig config) {
        Map<String, Analyzer> byField = new HashMap<>();
        for (FulltextConfig.Field f : config.fields()) {
            byField.put(f.name(), switch (f.type()) {
                case TEXT -> text(f.analyzer(), f.fold(), f.numbers());
                default -> keyword();
            });
        }
        return new PerFieldAnalyzerWrapper(keyword(), byField);
    }

    /**
     * English words that say nothing of what a text is about: Lucene's 33 and the rest of the
     * language's pronouns, auxiliaries, prepositions, conjunctions and determiners. Lucene's own
     * list leaves "we", "were", "from", "have", "which" in, and in a scientific article's text those
     * are among its most frequent words: a twelfth of the postings (measured on the demo's bodies),
     * for no query. A phrase keeps the places they held ("the role of water" is "role _ water").
     */
    static final CharArraySet ENGLISH_STOP_WORDS = CharArraySet.unmodifiableSet(new CharArraySet(List.of((
            "a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was"
            + " will with i me my we us our ours you your he him his she her hers its them theirs what which who whom whose when where"
            + " why how am been being were has have had having do does did doing would should could can may might must shall from"
            + " about above after again against all any both before below between during each few further here more most other off"
            + " once only out over own same so some than too under until up very while through nor also via per within without upon"
            + " whereas thus however").split(" ")), false));

    /** Words: english (Porter stemming, English stop words), french (elision, light stemming), standard. */
    static Analyzer text(String language, boolean fold, FulltextConfig.Numbers numbers) {
        return new Analyzer() {
            @Override
            protected TokenStreamComponents createComponents(String fieldName) {
                Tokenizer source = new StandardTokenizer();
                TokenStream t = source;
                if (numbers == FulltextConfig.Numbers.YEARS) t = new YearsOnly(t);
                if (language.equals("english")) t = new EnglishPossessiveFilter(t);
                if (language.equals("french")) t = new ElisionFilter(t, FrenchAnalyzer.DEFAULT_ARTICLES);
                t = new LowerCaseFilter(t);
                if (fold) t = new ASCIIFoldingFilter(t);
                switch (language) {
                    case "english" -> t = new PorterStemFilter(new StopFilter(t, ENGLISH_STOP_WORDS));
                    case "french" -> t = new FrenchLightStemFilter(new StopFilter(t, FrenchAnalyzer.getDefaultStopSet()));
                    default -> { }
                }
                return new TokenStreamComponents(source, t);
            }

            @Override
            public int getPositionIncrementGap(String fieldName) {
                return 100; // a phrase never spans two values (two authors, two keywords)
            }

            @Override
            protected TokenStream normalize(String fieldName, TokenStream in) {
                TokenStream t = new LowerCaseFilter(in);
                return fold ? new ASCIIFoldingFilter(t) : t;
            }
        };
    }

    /** Leaves out bare numbers ({@code 404}, {@code 0.03}, {@code 1,000}) but four-digit ones (years); see {@link FulltextConfig.Numbers}. */
    static final class YearsOnly extends FilteringTokenFilter {
        private final CharTermAttribute term = addAttribute(CharTermAttribute.class);

        YearsOnly(TokenStream in) {
            super(in);
        }

        @Override
        protected boolean accept() {
            char[] b = term.buffer();
            int n = term.length();
            boolean separator = false;
            for (int i = 0; i < n; i++) {
                char c = b[i];
                if (c == '.' || c == ',') separator = true;
                else if (c < '0' || c > '9') return true; // a word, perhaps with digits in it
            }
            return n == 4 && !separator;
        }
    }

    /** The whole value as one token, trimmed and lower-cased: DOIs, journals, types. */
    static Analyzer keyword() {
        return new Analyzer() {
            @Override
            protected TokenStreamComponents createComponents(String fieldName) {
                Tokenizer source = new KeywordTokenizer();
                return new TokenStreamComponents(source, new TrimFilter(new LowerCaseFilter(source)));
            }

            @Override
            protected TokenStream normalize(String fieldName, TokenStream in) {
                return new LowerCaseFilter(in);
            }
        };
    }
}
