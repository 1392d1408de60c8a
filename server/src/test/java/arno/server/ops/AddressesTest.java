package arno.server.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The metrics' allowed addresses: loopback and the blocks, by literal only. */
class AddressesTest {
    @Test void loopbackAndTheBlocksAreAdmittedByLiteralOnly() {
        Addresses a = new Addresses(List.of("198.51.100.0/24", "2001:db8::/32", "192.0.2.5"));
        assertThat(a.admits("127.0.0.1")).isTrue();
        assertThat(a.admits("0:0:0:0:0:0:0:1")).isTrue();
        assertThat(a.admits("198.51.100.77")).isTrue();
        assertThat(a.admits("192.0.2.5")).isTrue();
        assertThat(a.admits("2001:db8:1::9")).isTrue();
        assertThat(a.admits("198.51.101.1")).isFalse();
        assertThat(a.admits("192.0.2.6")).isFalse();
        // What a trusted proxy's X-Forwarded-For may carry: names resolve to nothing here, localhost included.
        assertThat(a.admits("localhost")).isFalse();
        assertThat(a.admits("localhost.localdomain")).isFalse();
        assertThat(a.admits("unknown")).isFalse();
        assertThat(a.admits("")).isFalse();
        assertThat(a.admits(null)).isFalse();
    }
}
