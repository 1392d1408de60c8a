package arno.fulltext;

import arno.store.Change;
import arno.store.Snapshot;
import arno.store.Store;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.sf.saxon.s9api.Processor;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;

/**
 * {@code ./arno store check}'s part for the full-text index, while no server holds it: the index
 * opens, was built from the store's configuration, and holds exactly the entries the configuration
 * selects in the store (apart from those changed after the version it applied, which the next start
 * catches up with). Reads only; what it finds is rebuilt or caught up by the next start.
 */
public final class FulltextCheck {

    /** What the check found: problems (none: it agrees) and notes (a lag, say). */
    public record Report(List<String> problems, List<String> notes) {}

    private FulltextCheck() {
    }

    public static Report check(Store store, Path folder) {
        List<String> problems = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        try (Snapshot s = store.read()) {
            FulltextConfig config = null;
            if (s.exists(FulltextConfig.URI)) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                s.export(FulltextConfig.URI, out);
                try {
                    config = FulltextConfig.parse(out.toByteArray(), Store.SCHEME + FulltextConfig.URI, store.options().xmlPolicy());
                } catch (RuntimeException e) {
                    problems.add("full-text configuration: " + e.getMessage());
                    return new Report(problems, notes);
                }
            }
            if (!Files.isDirectory(folder)) {
                if (config != null) notes.add("full-text index " + folder + ": none yet; the next start builds it");
                return new Report(problems, notes);
            }
            try (Directory d = FSDirectory.open(folder)) {
                if (!DirectoryReader.indexExists(d)) {
                    if (config != null) notes.add("full-text index " + folder + ": none yet; the next start builds it");
                    return new Report(problems, notes);
                }
                Map<String, String> data = SegmentInfos.readLatestCommit(d).getUserData();
                try (DirectoryReader r = DirectoryReader.open(d)) {
                    if (config == null) {
                        if (r.numDocs() > 0) problems.add("full-text index " + folder + " holds " + r.numDocs()
                                + " entries but the store has no " + FulltextConfig.URI + "; the next start empties it");
                        return new Report(problems, notes);
                    }
                    if (!FulltextIndex.FORMAT.equals(data.get(FulltextIndex.FORMAT_KEY))
                            || !config.hash().equals(data.get(FulltextIndex.CONFIG))) {
                        String xml = data.get(FulltextIndex.CONFIG_XML);
                        if (FulltextIndex.FORMAT.equals(data.get(FulltextIndex.FORMAT_KEY)) && xml != null && !xml.isEmpty()) {
                            // Not damage: a configuration changed since; a running index builds the new one beside it.
                            notes.add("full-text index " + folder + " answers with the configuration it was built with, not the "
                                    + "store's " + FulltextConfig.URI + " (changed since); a new index is built beside it ("
                                    + folder.resolveSibling(folder.getFileName() + ".next") + ") and takes its place");
                        } else {
                            problems.add("full-text index " + folder + " was built from another configuration or format than "
                                    + FulltextConfig.URI + "; the next start builds it again");
                        }
                        return new Report(problems, notes);
                    }
                    long version = Long.parseLong(data.getOrDefault(FulltextIndex.VERSION, "-1"));
                    compare(store, s, config, r, version, folder, problems, notes);
                }
            } catch (IOException | RuntimeException e) {
                problems.add("full-text index " + folder + " cannot be read (" + e.getMessage() + "); the next start builds it again");
            }
        }
        return new Report(problems, notes);
    }

    private static void compare(Store store, Snapshot s, FulltextConfig config, IndexReader r, long version, Path folder,
                                List<String> problems, List<String> notes) throws IOException {
        if (version > s.version()) {
            problems.add("full-text index " + folder + " has applied store version " + version + ", newer than the store's "
                    + s.version() + "; the next start builds it again");
            return;
        }
        Set<String> changedSince = new HashSet<>();
        if (version < s.version()) {
            try {
                for (Change c : s.changesSince(version)) {
                    String p = EntryDocuments.resourceOf(c.uri());
                    if (p != null) changedSince.add(p);
                }
                notes.add("full-text index " + folder + ": at store version " + version + " of " + s.version() + "; the next"
                        + " start catches up with " + changedSince.size() + " changed entries");
            } catch (RuntimeException pruned) {
                problems.add("full-text index " + folder + " is at store version " + version + ", older than the change feed"
                        + " keeps; the next start builds it again");
                return;
            }
        }
        Set<String> indexed = new HashSet<>();
        StoredFields stored = r.storedFields();
        for (var leaf : r.leaves()) {
            Bits live = leaf.reader().getLiveDocs();
            for (int i = 0; i < leaf.reader().maxDoc(); i++) {
                if (live != null && !live.get(i)) continue;
                String p = stored.document(leaf.docBase + i, Set.of(EntryDocuments.PATH)).get(EntryDocuments.PATH);
                if (!indexed.add(p)) problems.add("full-text index " + folder + " holds " + p + " twice");
            }
        }
        Processor processor = new Processor(false);
        store.options().xmlPolicy().install(processor.getUnderlyingConfiguration());
        EntryDocuments docs = new EntryDocuments(config, processor, Store.SCHEME + FulltextConfig.URI);
        int missing = 0;
        String after = null;
        while (true) {
            List<String> uris = s.uris("/", after, 1000);
            if (uris.isEmpty()) break;
            for (String u : uris) {
                String p = u.endsWith(".atom") ? EntryDocuments.resourceOf(u) : null;
                if (p == null || changedSince.contains(p)) continue;
                boolean wanted = docs.selected(s, p);
                boolean there = indexed.remove(p);
                if (wanted && !there && missing++ < 10) problems.add("full-text index " + folder + " lacks the entry " + p);
                if (!wanted && there) problems.add("full-text index " + folder + " holds " + p + ", which the configuration does not select");
            }
            after = uris.get(uris.size() - 1);
        }
        for (String p : indexed) {
            if (!changedSince.contains(p)) problems.add("full-text index " + folder + " holds " + p + ", which is not in the store");
        }
        if (missing > 10) problems.add("full-text index " + folder + " lacks " + (missing - 10) + " more entries");
    }
}
