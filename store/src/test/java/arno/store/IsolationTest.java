package arno.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import net.sf.saxon.Configuration;
import net.sf.saxon.om.AxisInfo;
import net.sf.saxon.om.NodeInfo;

/**
 * Snapshot isolation under a concurrent writer: the writer keeps committing generation g to all
 * documents of a set at once (and deletes and re-creates one of them); readers hold snapshots and
 * must see one generation across every document, the same on every re-read for as long as they
 * hold the snapshot, equal to the change feed's last version in that snapshot.
 */
class IsolationTest {

    static final int DOCS = 8;

    @TempDir
    Path dir;

    static String doc(int g, int i) {
        StringBuilder b = new StringBuilder("<doc g='").append(g).append("' i='").append(i).append("'>");
        for (int k = 0; k < 50 + (g * 7 + i) % 50; k++) {
            b.append("<item g='").append(g).append("'>").append(k).append("</item>");
        }
        return b.append("</doc>").toString();
    }

    static int generation(NodeInfo root) {
        NodeInfo docElement = root.iterateAxis(AxisInfo.CHILD).next();
        int g = Integer.parseInt(docElement.getAttributeValue(net.sf.saxon.om.NamespaceUri.NULL, "g"));
        // every item of the document carries the same generation: no torn document either
        NodeInfo item;
        var items = docElement.iterateAxis(AxisInfo.CHILD);
        int n = 0;
        while ((item = items.next()) != null) {
            assertThat(item.getAttributeValue(net.sf.saxon.om.NamespaceUri.NULL, "g")).isEqualTo(String.valueOf(g));
            n++;
        }
        assertThat(n).isEqualTo(50 + (g * 7 + Integer.parseInt(
                docElement.getAttributeValue(net.sf.saxon.om.NamespaceUri.NULL, "i"))) % 50);
        return g;
    }

    @Test
    void readersSeeOneGenerationWhileTheWriterCommits() throws Exception {
        try (Store store = TestStores.open(dir)) {
            write(store, 0);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger generations = new AtomicInteger();
            AtomicInteger checks = new AtomicInteger();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            CountDownLatch readersStarted = new CountDownLatch(3);
            Thread writer = new Thread(() -> {
                try {
                    readersStarted.await();
                    for (int g = 1; g <= 60 && failures.isEmpty(); g++) {
                        write(store, g);
                        generations.set(g);
                    }
                } catch (Throwable t) {
                    failures.add(t);
                } finally {
                    stop.set(true);
                }
            });
            List<Thread> readers = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                Thread t = new Thread(() -> {
                    Configuration config = new Configuration();
                    readersStarted.countDown();
                    try {
                        while (!stop.get()) {
                            try (Snapshot s = store.read()) {
                                int g = -1;
                                for (int pass = 0; pass < 3; pass++) {
                                    for (int i = 0; i < DOCS; i++) {
                                        int seen = generation(s.document("/iso/" + i + ".xml", config).getRootNode());
                                        if (g < 0) {
                                            g = seen;
                                        }
                                        assertThat(seen).as("document %d in snapshot %d", i, s.version()).isEqualTo(g);
                                    }
                                    // the version counts commits: generation g was commit g + 1
                                    assertThat(s.version()).isEqualTo(g + 1L);
                                    assertThat(s.changesSince(s.version() - 1)).hasSize(g == 0 ? DOCS : DOCS + 1);
                                    Thread.sleep(2);
                                }
                                checks.incrementAndGet();
                            }
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
                readers.add(t);
                t.start();
            }
            writer.start();
            writer.join(120_000);
            for (Thread t : readers) {
                t.join(30_000);
            }
            assertThat(failures).isEmpty();
            assertThat(generations.get()).isEqualTo(60);
            assertThat(checks.get()).isGreaterThan(10);
            assertThat(store.check()).isEmpty();
        }
    }

    /**
     * A snapshot's read transaction is reset when it closes and renewed by a later snapshot
     * ({@link Store#read}): the renewed one must see the commits made meanwhile, and keeping them
     * must not use up the reader table. Here it has room for the kept ones and six more: every
     * round opens all it can at once, more than are kept, and closes them.
     */
    @Test
    void aRenewedReadSeesTheLatestCommitAndTheReaderTableLasts() {
        int readers = Store.IDLE_READS + 6;
        try (Store store = Store.open(dir, TestStores.SMALL.maxReaders(readers))) {
            Configuration config = new Configuration();
            for (int g = 0; g < 200; g++) {
                write(store, g);
                List<Snapshot> open = new ArrayList<>();
                try {
                    for (int r = 0; r < readers; r++) {
                        Snapshot s = store.read();
                        open.add(s);
                        assertThat(s.version()).isEqualTo(g + 1L);
                        assertThat(generation(s.document("/iso/" + r % DOCS + ".xml", config).getRootNode())).isEqualTo(g);
                    }
                } finally {
                    open.forEach(Snapshot::close);
                }
            }
            assertThat(store.openSnapshots()).isZero();
            assertThat(store.check()).isEmpty();
        }
        // the kept transactions were ended with the store: it opens again and reads
        try (Store store = Store.open(dir, TestStores.SMALL.maxReaders(readers)); Snapshot s = store.read()) {
            assertThat(s.version()).isEqualTo(200L);
        }
    }

    /** One commit: every document at generation g; the first is deleted and re-created. */
    static void write(Store store, int g) {
        try (WriteTransaction w = store.write()) {
            w.delete("/iso/0.xml");
            for (int i = 0; i < DOCS; i++) {
                TestStores.put(w, "/iso/" + i + ".xml", doc(g, i));
            }
            w.commit();
        }
    }
}
