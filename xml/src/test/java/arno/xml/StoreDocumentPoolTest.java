package arno.xml;

import static org.assertj.core.api.Assertions.assertThat;

import arno.testkit.Wait;
import java.io.StringReader;
import java.time.Duration;
import javax.xml.transform.stream.StreamSource;
import net.sf.saxon.Configuration;
import net.sf.saxon.om.DocumentKey;
import net.sf.saxon.om.DocumentPool;
import net.sf.saxon.om.TreeInfo;
import org.junit.jupiter.api.Test;

class StoreDocumentPoolTest {
    private final Configuration config = new Configuration();

    private TreeInfo parse(String xml, String uri) throws Exception {
        return config.buildDocumentTree(new StreamSource(new StringReader(xml), uri));
    }

    @Test
    void storedDocumentsStayWhileHeldTheOthersAlways() throws Exception {
        DocumentPool pool = new DocumentPool();
        TreeInfo file = parse("<f/>", "file:/f.xml");
        pool.add(file, "file:/f.xml"); // before the install: kept through it
        assertThat(StoreDocumentPool.install(pool)).isTrue();
        assertThat(StoreDocumentPool.install(pool)).as("a second install changes nothing").isTrue();
        assertThat(pool.find("file:/f.xml")).isSameAs(file);

        TreeInfo held = parse("<held/>", "store:/held.xml");
        pool.add(held, new DocumentKey("store:/held.xml"));
        for (int i = 0; i < 1000; i++) {
            pool.add(parse("<d n='" + i + "'/>", "store:/d/" + i + ".xml"), new DocumentKey("store:/d/" + i + ".xml"));
        }
        file = null;
        Wait.upTo(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
            System.gc();
            assertThat(pool.find("store:/d/999.xml")).as("a stored document nobody holds").isNull();
        });
        assertThat(pool.find("store:/held.xml")).isSameAs(held);
        assertThat(pool.getDocumentURI(held.getRootNode())).isEqualTo("store:/held.xml");
        assertThat(pool.contains(held)).isTrue();
        assertThat(pool.find("file:/f.xml")).as("a file, held strongly as Saxon holds it").isNotNull();
        assertThat(pool.discard(held)).isSameAs(held);
        assertThat(pool.find("store:/held.xml")).isNull();
    }
}
