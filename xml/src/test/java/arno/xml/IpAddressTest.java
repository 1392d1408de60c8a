package arno.xml;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Inet4Address;
import java.net.Inet6Address;
import org.junit.jupiter.api.Test;

/** Address literals parse; names and near-literals are refused without a DNS lookup. */
class IpAddressTest {
    @Test void literalsParse() {
        assertThat(IpAddress.parse("203.0.113.7")).isInstanceOf(Inet4Address.class)
                .satisfies(a -> assertThat(a.getHostAddress()).isEqualTo("203.0.113.7"));
        assertThat(IpAddress.parse("2001:db8::1")).isInstanceOf(Inet6Address.class);
        assertThat(IpAddress.parse("::1").isLoopbackAddress()).isTrue();
        assertThat(IpAddress.parse("0:0:0:0:0:0:0:1").isLoopbackAddress()).isTrue();
        assertThat(IpAddress.parse("::ffff:192.0.2.1")).isInstanceOf(Inet4Address.class);
        assertThat(IpAddress.isLoopback("127.0.0.1")).isTrue();
        assertThat(IpAddress.isLoopback("127.9.9.9")).isTrue();
    }

    @Test void aNameIsNotAnAddress() {
        // localhost resolves to loopback on every machine: refused, so it was not looked up
        assertThat(IpAddress.parse("localhost")).isNull();
        assertThat(IpAddress.isLoopback("localhost")).isFalse();
        assertThat(IpAddress.isLoopback("LOCALHOST")).isFalse();
        assertThat(IpAddress.parse("localhost.")).isNull();
        assertThat(IpAddress.parse("ip6-localhost")).isNull();
        // InetAddress would hand these to DNS as names
        assertThat(IpAddress.parse("cafe")).isNull();
        assertThat(IpAddress.parse("300.1.1.1")).isNull();
        assertThat(IpAddress.parse("1.2.3")).isNull();
        assertThat(IpAddress.parse("127.1")).isNull();
        assertThat(IpAddress.parse("2130706433")).isNull();
        assertThat(IpAddress.parse("010.0.0.1")).isNull();
        assertThat(IpAddress.parse("x:1")).isNull();
        assertThat(IpAddress.parse("[::1]")).isNull();
        assertThat(IpAddress.parse("")).isNull();
        assertThat(IpAddress.parse(null)).isNull();
        assertThat(IpAddress.parse("1:2:3:4:5:6:7:8:9")).isNull();
    }
}
