package arno.fulltext;

import arno.xml.OwnerOnly;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.store.Lock;

/**
 * A Lucene folder whose every file is owner-only, as everything Arno writes under its data folder:
 * Lucene creates files with the process's umask, so each is restricted as soon as it exists (before
 * anything is written into it; the folder itself is owner-only from the start). Renames keep it.
 */
final class OwnerOnlyDirectory extends FilterDirectory {
    private final Path folder;

    OwnerOnlyDirectory(FSDirectory in) {
        super(in);
        this.folder = in.getDirectory();
    }

    @Override
    public IndexOutput createOutput(String name, IOContext context) throws IOException {
        IndexOutput out = super.createOutput(name, context);
        OwnerOnly.restrict(folder.resolve(name));
        return out;
    }

    @Override
    public IndexOutput createTempOutput(String prefix, String suffix, IOContext context) throws IOException {
        IndexOutput out = super.createTempOutput(prefix, suffix, context);
        OwnerOnly.restrict(folder.resolve(out.getName()));
        return out;
    }

    @Override
    public Lock obtainLock(String name) throws IOException {
        Lock lock = super.obtainLock(name);
        OwnerOnly.restrict(folder.resolve(name));
        return lock;
    }
}
