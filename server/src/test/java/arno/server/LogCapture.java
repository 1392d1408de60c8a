package arno.server;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** Collects what Arno logs (System.Logger "arno" goes to java.util.logging). */
final class LogCapture extends Handler implements AutoCloseable {
    private static final Logger ARNO = Logger.getLogger("arno");
    final List<String> lines = new CopyOnWriteArrayList<>();

    LogCapture() {
        ARNO.addHandler(this);
    }

    @Override
    public void publish(LogRecord r) {
        String m = r.getMessage();
        if (r.getParameters() != null) m = java.text.MessageFormat.format(m, r.getParameters());
        lines.add(m);
    }

    List<String> containing(String text) {
        return lines.stream().filter(l -> l.contains(text)).toList();
    }

    @Override public void flush() {}

    @Override
    public void close() {
        ARNO.removeHandler(this);
    }
}
