package arno.server;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** Collects what Arno logs (System.Logger "arno" goes to java.util.logging). */
public final class LogCapture extends Handler implements AutoCloseable {
    private static final Logger ARNO = Logger.getLogger("arno");
    public final List<String> lines = new CopyOnWriteArrayList<>();

    public LogCapture() {
        ARNO.addHandler(this);
    }

    @Override
    public void publish(LogRecord r) {
        String m = r.getMessage();
        if (r.getParameters() != null) m = java.text.MessageFormat.format(m, r.getParameters());
        lines.add(m);
    }

    public List<String> containing(String text) {
        return lines.stream().filter(l -> l.contains(text)).toList();
    }

    @Override public void flush() {}

    @Override
    public void close() {
        ARNO.removeHandler(this);
    }
}
