package arno.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import arno.xml.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lmdbjava.Env;
import org.lmdbjava.LmdbException;
import org.lmdbjava.LmdbFailures;

/**
 * LMDB's failures become store errors in one place ({@link StoreFailures}): what the real store
 * does when its map or reader table is full or its file is not LMDB's, and the mapping of the
 * failures that cannot be made on demand. Each keeps the status the store always answered with.
 */
class StoreFailuresTest {
    @TempDir
    Path dir;

    @Test
    void aFullMapSaysHowToRaiseIt() {
        try (Store store = Store.open(dir, TestStores.SMALL.mapSize(1L << 20))) {
            byte[] doc = ("<d>" + "x".repeat(100_000) + "</d>").getBytes(StandardCharsets.UTF_8);
            StoreException e = catchThrowableOfType(() -> {
                for (int i = 0; i < 100; i++) {
                    try (WriteTransaction w = store.write()) {
                        w.put("/d" + i + ".xml", doc);
                        w.commit();
                    }
                }
            }, StoreException.class);
            assertThat(e).isNotNull();
            assertThat(e.code()).isEqualTo(ErrorCode.STORE_FULL);
            assertThat(e.status()).isEqualTo(507);
            assertThat(e.getMessage()).contains("the store is full").contains("--map-size");
        }
    }

    @Test
    void tooManySnapshotsSayWhatToClose() {
        try (Store store = Store.open(dir, TestStores.SMALL.maxReaders(1))) {
            try (Snapshot held = store.read()) {
                StoreException e = catchThrowableOfType(store::read, StoreException.class);
                assertThat(e.code()).isEqualTo(ErrorCode.IO);
                assertThat(e.getMessage()).contains("too many read snapshots are open at once").contains("maxReaders");
                assertThat(e.getCause()).isInstanceOf(Env.ReadersFullException.class);
            }
        }
    }

    @Test
    void aDataFileThatIsNotLmdbsIsNoStore() throws Exception {
        Files.write(dir.resolve("data.mdb"), "not an LMDB file, whatever it is".repeat(1000).getBytes(StandardCharsets.UTF_8));
        StoreException e = catchThrowableOfType(() -> Store.open(dir, TestStores.SMALL), StoreException.class);
        assertThat(e.code()).isEqualTo(ErrorCode.STORE_FORMAT);
        assertThat(e.getMessage()).startsWith("store " + dir.toAbsolutePath().normalize())
                .contains("holds a data.mdb that this LMDB cannot read").contains("it is not an Arno store");
    }

    @Test
    void damagedPagesPointToTheCheck() {
        for (LmdbException damaged : new LmdbException[] {LmdbFailures.pageCorrupted(), LmdbFailures.panic()}) {
            StoreException e = StoreFailures.of(damaged, "store:/a.xml");
            assertThat(e.code()).as(damaged.toString()).isEqualTo(ErrorCode.STORE_CORRUPT);
            assertThat(e.status()).isEqualTo(500);
            assertThat(e.getMessage()).startsWith("store:/a.xml: the store's data file is damaged (")
                    .contains("./arno store check");
            assertThat(e.where().document()).isEqualTo("store:/a.xml");
            assertThat(e.getCause()).isSameAs(damaged);
        }
    }

    @Test
    void everyOtherFailureSaysWhatToDo() {
        assertThat(StoreFailures.of(LmdbFailures.transactionFull(), "commit")
                .getMessage()).isEqualTo("commit: one transaction writes more than LMDB can hold in one (MDB_TXN_FULL);"
                        + " write fewer documents at once");
        StoreException misuse = StoreFailures.of(LmdbFailures.badReaderLock(), "store /s");
        assertThat(misuse.code()).isEqualTo(ErrorCode.INTERNAL);
        assertThat(misuse.getMessage()).contains("LMDB refused how Arno used it").contains("a bug");
        assertThat(StoreFailures.of(LmdbFailures.mapResized(), "store /s").getMessage()).contains("MDB_MAP_RESIZED");
        StoreException disk = StoreFailures.of(LmdbFailures.errno(28, "No space left on device"), "commit");
        assertThat(disk.code()).isEqualTo(ErrorCode.IO);
        assertThat(disk.getMessage()).startsWith("commit: the disk is full (").contains("--data");
        assertThat(StoreFailures.of(LmdbFailures.errno(13, "Permission denied"), "store /s").getMessage())
                .contains("cannot be written").contains("permissions");
        StoreException closed = StoreFailures.of(new Env.AlreadyClosedException(), "store /s");
        assertThat(closed.code()).isEqualTo(ErrorCode.CLOSED);
        assertThat(closed.getMessage()).isEqualTo("store /s: the store is closed");
        StoreException other = StoreFailures.of(new LmdbException("something new"), "store /s");
        assertThat(other.code()).isEqualTo(ErrorCode.IO);
        assertThat(other.getMessage()).isEqualTo("store /s: LMDB failed: something new");
    }
}
