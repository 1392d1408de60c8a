package arno.sites;

import java.io.IOException;
import org.junit.jupiter.api.BeforeAll;

/**
 * The same demo-site checks with the content only in the LMDB store: the
 * server's content folder is empty, so every page is built from stored
 * trees navigated in place, and must match the source files exactly as the
 * file-served pages do.
 */
class DemoSitesFromStoreHttpTest extends DemoSitesHttpTest {
    @BeforeAll
    static void start() throws IOException {
        serve(true);
    }
}
