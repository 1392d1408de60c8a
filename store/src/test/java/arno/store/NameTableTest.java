package arno.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;
import net.sf.saxon.om.NodeName;
import org.junit.jupiter.api.Test;

/** The name table's index by fingerprint against a full scan of its codes. */
class NameTableTest {

    @Test
    void theCodesOfAFingerprintAreThoseAScanFinds() {
        Random random = new Random(25);
        for (int size : new int[] {0, 1, 2, 7, 64, 1000}) {
            // fingerprints repeat (one name under several prefixes) and are spread like a NamePool's
            int[] fps = IntStream.range(0, size).map(i -> random.nextInt(Math.max(1, size / 3)) * 1024 + 1).toArray();
            Namebase.Table table = new Namebase.Table(fps, new NodeName[size], new String[size]);
            for (int fp = -1; fp <= size / 3 * 1024 + 2; fp++) {
                int f = fp;
                int[] scan = IntStream.range(0, size).filter(i -> fps[i] == f).toArray();
                assertThat(table.codes(fp)).as("fingerprint %d of %d codes", fp, size).containsExactly(scan);
            }
            assertThat(Arrays.stream(fps).allMatch(fp -> table.codes(fp).length > 0)).isTrue();
        }
    }
}
