package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.Outbound;
import arno.xml.XmlPolicy;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Settings are refused when built, naming the setting and the value; the defaults are the safe ones. */
class OptionsTest {
    @TempDir Path tmp;

    @Test void badSettingsAreRefusedWithTheirNameAndValue() {
        assertThatThrownBy(() -> BatchOptions.builder(tmp).workers(0).build())
                .isInstanceOfSatisfying(ArnoException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_CONFIGURATION))
                .hasMessage("batch option workers must be at least 1, not 0");
        assertThatThrownBy(() -> BatchOptions.builder(tmp).queueBound(-3).build()).hasMessageContaining("queueBound");
        assertThatThrownBy(() -> BatchOptions.builder(tmp).hosts(List.of("a.example/x")).build()).hasMessageContaining("hosts");
    }

    @Test void defaultsAreInOnePlaceAndAreTheSafeOnes() {
        BatchOptions o = BatchOptions.builder(tmp).build();
        assertThat(o.workers()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(o.usersFile()).isEqualTo(tmp.resolve("users"));
        assertThat(o.queueBound()).isEqualTo(100);
        // no folder, no private address, the one XML policy, no Host trusted
        assertThat(o.roots()).isEmpty();
        assertThat(o.outbound()).isEqualTo(Outbound.Policy.DEFAULT);
        assertThat(o.outbound().privateAddresses()).isFalse();
        assertThat(o.xmlPolicy()).isSameAs(XmlPolicy.DEFAULT);
        assertThat(o.hosts()).isEmpty();
    }

    @Test void aRootThatDoesNotExistIsRefusedAtStart() {
        BatchOptions o = BatchOptions.builder(tmp.resolve("work")).roots(List.of(tmp.resolve("no-such-folder"))).build();
        assertThatThrownBy(() -> BatchService.start(o))
                .isInstanceOfSatisfying(ArnoException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_CONFIGURATION))
                .hasMessageContaining("no-such-folder");
    }
}
