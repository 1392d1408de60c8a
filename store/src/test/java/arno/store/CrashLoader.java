package arno.store;

import arno.testkit.Corpus;
import java.nio.file.Path;

/**
 * The child JVM of {@link ProcessTest}: loads batches of documents, one transaction each, and
 * prints {@code committed N} after each commit, until it is killed. Documents are generated from
 * their batch and index, so the parent can rebuild what each one must contain.
 */
public final class CrashLoader {

    static final int PER_BATCH = 4;

    private CrashLoader() {
    }

    static String uri(int batch, int i) {
        return "/crash/b" + batch + "/d" + i + ".xml";
    }

    static String content(int batch, int i) {
        return Corpus.abstractDocs(120 + (batch * 7 + i) % 60, batch * 100L + i);
    }

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        int batches = Integer.parseInt(args[1]);
        try (Store store = Store.open(dir, TestStores.SMALL)) {
            System.out.println("open " + ProcessHandle.current().pid());
            System.out.flush();
            for (int b = 0; b < batches; b++) {
                try (WriteTransaction w = store.write()) {
                    for (int i = 0; i < PER_BATCH; i++) {
                        TestStores.put(w, uri(b, i), content(b, i));
                    }
                    w.commit();
                }
                System.out.println("committed " + b);
                System.out.flush();
            }
            System.out.println("done");
        }
    }
}
