package arno.fulltext;

import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.core.KeywordTokenizer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.fr.FrenchAnalyzer;
import org.apache.lucene.analysis.fr.FrenchLightStemFilter;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.apache.lucene.analysis.miscellaneous.PerFieldAnalyzerWrapper;
import org.apache.lucene.analysis.miscellaneous.TrimFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
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
                case TEXT -> text(f.analyzer(), f.fold());
                default -> keyword();
            });
        }
        return new PerFieldAnalyzerWrapper(keyword(), byField);
    }

    /** Words: english (Porter stemming, English stop words), french (elision, light stemming), standard. */
    static Analyzer text(String language, boolean fold) {
        return new Analyzer() {
            @Override
            protected TokenStreamComponents createComponents(String fieldName) {
                Tokenizer source = new StandardTokenizer();
                TokenStream t = source;
                if (language.equals("english")) t = new EnglishPossessiveFilter(t);
                if (language.equals("french")) t = new ElisionFilter(t, FrenchAnalyzer.DEFAULT_ARTICLES);
                t = new LowerCaseFilter(t);
                if (fold) t = new ASCIIFoldingFilter(t);
                switch (language) {
                    case "english" -> t = new PorterStemFilter(new StopFilter(t, EnglishAnalyzer.ENGLISH_STOP_WORDS_SET));
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
