package arno.perf.fulltext;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.index.StoredFieldVisitor;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;

/**
 * The text an index holds, counted from its stored values: every field of the configuration is
 * stored as its XPath took it (text fields whole, for snippets; keyword fields as written), so their
 * UTF-8 bytes are the text the index took, without evaluating the configuration again. Fields
 * whose postings have positions and offsets are the analysed text (title, abstract, body,
 * authors, keywords); the rest are keys and keywords (path, kind, DOI, journal, type, year, date).
 */
final class IndexText {

    record Counted(long documents, long analysed, long all, Map<String, Long> byField) {}

    private IndexText() {
    }

    static Counted count(Path folder) throws IOException {
        Map<String, Long> byField = new TreeMap<>();
        long[] analysed = {0};
        long[] all = {0};
        long documents = 0;
        long t0 = System.nanoTime();
        long shown = t0;
        try (FSDirectory dir = FSDirectory.open(folder); DirectoryReader reader = DirectoryReader.open(dir)) {
            StoredFieldVisitor visitor = new StoredFieldVisitor() {
                @Override
                public Status needsField(FieldInfo fieldInfo) {
                    return Status.YES;
                }

                @Override
                public void stringField(FieldInfo fieldInfo, String value) {
                    long n = utf8(value);
                    all[0] += n;
                    if (fieldInfo.getIndexOptions() == IndexOptions.DOCS_AND_FREQS_AND_POSITIONS_AND_OFFSETS) analysed[0] += n;
                    byField.merge(fieldInfo.name, n, Long::sum);
                }
            };
            for (LeafReaderContext leaf : reader.leaves()) {
                StoredFields stored = leaf.reader().storedFields();
                Bits live = leaf.reader().getLiveDocs();
                for (int d = 0; d < leaf.reader().maxDoc(); d++) {
                    if (live != null && !live.get(d)) continue;
                    stored.document(d, visitor);
                    documents++;
                    if ((documents & 1023) == 0 && System.nanoTime() - shown >= 10_000_000_000L) {
                        shown = System.nanoTime();
                        System.out.printf(Locale.ROOT, "  counting the stored text: %,d of %,d documents%n", documents, reader.numDocs());
                    }
                }
            }
        }
        System.out.printf(Locale.ROOT, "  (counted in %.1f s)%n", (System.nanoTime() - t0) / 1e9);
        return new Counted(documents, analysed[0], all[0], byField);
    }

    /** Bytes by kind of file (extension), looking inside compound files. */
    static Map<String, Long> fileKinds(Path folder) throws IOException {
        Map<String, Long> kinds = new TreeMap<>();
        try (FSDirectory dir = FSDirectory.open(folder)) {
            SegmentInfos infos = SegmentInfos.readLatestCommit(dir);
            for (SegmentCommitInfo c : infos) {
                SegmentInfo si = c.info;
                if (si.getUseCompoundFile()) {
                    try (Directory cfs = si.getCodec().compoundFormat().getCompoundReader(dir, si, IOContext.READONCE)) {
                        for (String f : cfs.listAll()) kinds.merge(kind(f), cfs.fileLength(f), Long::sum);
                    }
                    for (String f : c.files()) if (!f.endsWith(".cfs") && !f.endsWith(".cfe")) kinds.merge(kind(f), dir.fileLength(f), Long::sum);
                } else {
                    for (String f : c.files()) kinds.merge(kind(f), dir.fileLength(f), Long::sum);
                }
            }
            kinds.merge("segments", dir.fileLength(infos.getSegmentsFileName()), Long::sum);
        }
        return kinds;
    }

    private static String kind(String file) {
        int dot = file.lastIndexOf('.');
        return dot < 0 ? file : file.substring(dot + 1);
    }

    static long utf8(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) n++;
            else if (c < 0x800) n += 2;
            else if (Character.isHighSurrogate(c)) {
                n += 4;
                i++;
            } else n += 3;
        }
        return n;
    }
}
