package arno.store.query;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The load progress display, driven by an injected clock. */
class ProgressTest {

    @Test
    void progressRedrawsOnATerminalAndLogsLinesOtherwise() {
        long[] now = {0};
        StringWriter tty = new StringWriter();
        Progress p = new Progress(new PrintWriter(tty, true), true, () -> now[0], 2, 2048);
        p.file("/a.xml");
        p.bytes(1024);
        now[0] = Progress.TTY_INTERVAL_NANOS + 1;
        p.bytes(0);
        p.done(true);
        now[0] = 2 * Progress.TTY_INTERVAL_NANOS + 2;
        p.file("/b.xml");
        assertThat(tty.toString()).contains("[store]  50% 0/2 files  1.0 KB")
                .contains("\r").contains("1/2 files").contains("/b.xml");
        StringWriter log = new StringWriter();
        now[0] = 0;
        Progress l = new Progress(new PrintWriter(log, true), false, () -> now[0], 1, 0);
        l.file("/c.xml");
        now[0] = Progress.TTY_INTERVAL_NANOS * 2;
        l.bytes(10);
        assertThat(log.toString()).isEmpty();
        now[0] = Progress.LOG_INTERVAL_NANOS + 1;
        l.bytes(10);
        List<String> lines = log.toString().lines().toList();
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).doesNotContain("\r").contains("0/1 files  20 B");
    }

    @Test
    void finishClearsTheRedrawnLineAndFreezesTheTime() {
        long[] now = {0};
        StringWriter tty = new StringWriter();
        Progress p = new Progress(new PrintWriter(tty, true), true, () -> now[0], 1, 10);
        now[0] = Progress.TTY_INTERVAL_NANOS + 1;
        p.file("/a.xml");
        String drawn = tty.toString();
        assertThat(drawn).contains("/a.xml").doesNotEndWith("\n");
        now[0] = 2_000_000_000L;
        assertThat(p.finish()).isEqualTo(2.0);
        assertThat(tty.toString().substring(drawn.length())).matches("\r *\r");
        now[0] = 5_000_000_000L;
        assertThat(p.seconds()).isEqualTo(2.0);
    }
}
