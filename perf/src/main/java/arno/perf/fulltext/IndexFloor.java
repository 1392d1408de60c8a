package arno.perf.fulltext;

import arno.fulltext.FulltextConfig;
import arno.xml.XmlPolicy;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.XPathSelector;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.core.WhitespaceAnalyzer;
import org.apache.lucene.codecs.lucene912.Lucene912Codec;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.FSDirectory;

/**
 * What Lucene alone takes to index the demo's article bodies on this machine, one way after
 * another, without the store: the bodies' text taken once from a content folder's JATS (an
 * article's {@code /article/body} text) into memory, then indexed by two threads (one per core)
 * into a scratch folder under /tmp, each way in turn:
 * <ul>
 * <li>{@code analyze}: the body field's analyzer as the index configures it (English, folding,
 * years only), its tokens read and dropped: analysis alone;</li>
 * <li>{@code full}: as the index is built (positions and offsets, the text stored, DEFLATE);</li>
 * <li>{@code nostore}: the same postings, the text not stored;</li>
 * <li>{@code nooffsets}: positions without offsets, the text stored;</li>
 * <li>{@code minimal}: split at spaces, documents and frequencies only, nothing stored: less than
 * any useful index.</li>
 * </ul>
 * Every way runs once unmeasured first (the JIT's), then each is measured. Prints per way the articles/s, the CPU per article and the index per article: the floor any
 * build from the store stands on (issue 24's rebuild goal, 2,000 articles/s).
 *
 * <pre>
 * java -Xmx4g -cp "$(perf/classpath.sh)" arno.perf.fulltext.IndexFloor perf/target/pages/data-1000/content 8000
 * </pre>
 */
public final class IndexFloor {
    public static void main(String[] a) throws Exception {
        Path content = Path.of(a[0]);
        int total = Integer.parseInt(a[1]);
        List<String> texts = new ArrayList<>();
        Processor p = new Processor(false);
        XPathSelector sel = p.newXPathCompiler().compile("string-join(/article/body//text(), ' ')").load();
        try (Stream<Path> s = Files.walk(content.resolve("journals"))) {
            for (Path f : s.filter(x -> x.getFileName().toString().matches("a[0-9]+\\.xml")).sorted().toList()) {
                if (content.resolve("journals").relativize(f).getNameCount() != 4) continue;
                sel.setContextItem(p.newDocumentBuilder().build(f.toFile()));
                texts.add(sel.evaluateSingle().getStringValue());
            }
        }
        long chars = 0; for (String t : texts) chars += t.length();
        System.out.printf("%d texts, %.1f KB of text each%n", texts.size(), chars / 1024.0 / texts.size());
        String[] configs = a.length > 2 ? a[2].split(",") : new String[] {"analyze", "full", "nostore", "nooffsets", "minimal"};
        // The JIT's first minutes are not the build's: every way once, unmeasured, then each measured.
        PrintStream out = System.out;
        System.setOut(new PrintStream(java.io.OutputStream.nullOutputStream()));
        for (String c : configs) run(c, texts, total / 2);
        System.setOut(out);
        for (String c : configs) run(c, texts, total);
    }

    static void run(String config, List<String> texts, int total) throws Exception {
        Analyzer an = switch (config) {
            case "minimal" -> new WhitespaceAnalyzer();
            default -> FulltextConfig.parse(FulltextConfig.defaultXml(), "default-fulltext.xml", XmlPolicy.DEFAULT).analyzer();
        };
        FieldType ft = new FieldType();
        ft.setTokenized(true);
        ft.setStored(!config.equals("nostore") && !config.equals("minimal") && !config.equals("nooffsets-nostore"));
        ft.setIndexOptions(switch (config) {
            case "nooffsets", "nooffsets-nostore" -> IndexOptions.DOCS_AND_FREQS_AND_POSITIONS;
            case "minimal" -> IndexOptions.DOCS_AND_FREQS;
            default -> IndexOptions.DOCS_AND_FREQS_AND_POSITIONS_AND_OFFSETS;
        });
        ft.freeze();
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "floor-");
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime(), t0 = System.nanoTime();
        if (config.equals("analyze")) {
            onCores(total, n -> {
                try (TokenStream ts = an.tokenStream("body", texts.get(n % texts.size()))) {
                    ts.reset();
                    while (ts.incrementToken()) {
                        // the tokens are read and dropped: the analysis alone
                    }
                    ts.end();
                }
            });
        } else {
            IndexWriterConfig wc = new IndexWriterConfig(an);
            wc.setCodec(new Lucene912Codec(Lucene912Codec.Mode.BEST_COMPRESSION));
            wc.setRAMBufferSizeMB(32);
            try (FSDirectory d = FSDirectory.open(dir); IndexWriter w = new IndexWriter(d, wc)) {
                onCores(total, n -> {
                    Document doc = new Document();
                    doc.add(new StringField("_path", "/a/" + n, Field.Store.YES));
                    doc.add(new Field("body", texts.get(n % texts.size()), ft));
                    w.addDocument(doc);
                });
                w.commit();
            }
        }
        double s = (System.nanoTime() - t0) / 1e9, cpu = (os.getProcessCpuTime() - cpu0) / 1e9;
        long size = 0;
        try (Stream<Path> f = Files.walk(dir)) { for (Path x : f.filter(Files::isRegularFile).toList()) size += Files.size(x); }
        try (Stream<Path> f = Files.walk(dir)) { f.sorted(Comparator.reverseOrder()).forEach(x -> x.toFile().delete()); }
        System.out.printf("%-10s %6d docs in %5.1f s: %6.0f docs/s, %.2f ms CPU a doc, %.2f cores; index %.1f KB a doc%n",
                config, total, s, total / s, cpu * 1000 / total, cpu / s, size / 1024.0 / total);
    }

    /** One article's work. */
    interface Work {
        void run(int article) throws Exception;
    }

    /** Articles 0 to {@code total - 1}, each once, shared out to two threads (one per core). */
    static void onCores(int total, Work work) throws InterruptedException {
        AtomicInteger next = new AtomicInteger();
        Thread[] threads = new Thread[2];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = new Thread(() -> {
                try {
                    for (int n; (n = next.getAndIncrement()) < total; ) work.run(n);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            threads[i].start();
        }
        for (Thread t : threads) t.join();
    }
}
