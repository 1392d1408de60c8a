package arno.server.config;

import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.ConsoleHandler;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import java.util.logging.StreamHandler;

/**
 * Applies the configuration's {@code <log level file/>} to java.util.logging, where Arno's
 * System.Logger "arno" and Tomcat's JULI both end up. The level is set on the "arno" logger and on
 * the root's handlers (so debug lines are not dropped by a console handler left at INFO, and at
 * "warning" Tomcat's INFO lines go too; Tomcat's own loggers keep their level, so "debug" does
 * not flood the log with Tomcat's internals). A log file replaces the root's console handlers;
 * it is opened for appending (so logrotate's copytruncate works) and flushed after every line.
 *
 * <p>Logging is per process: a later {@link #apply} undoes what the previous one did (the file
 * is closed, the console handlers come back) before doing its own.
 */
public final class Logging {
    /** Held: java.util.logging keeps loggers weakly, and a collected one forgets its level. */
    private static final Logger ARNO = Logger.getLogger("arno");
    private static final List<Handler> removedConsoles = new ArrayList<>();
    private static Handler file;
    private static Path filePath;

    private Logging() {}

    /**
     * Logs at {@code level} or above, to {@code logFile} (appended to; its folder is created), or
     * to standard error when it is null. Fails with {@link ErrorCode#BAD_CONFIGURATION} when the
     * file cannot be opened.
     */
    public static synchronized void apply(Config.LogLevel level, Path logFile) {
        Logger root = Logger.getLogger("");
        Handler opened = null;
        if (logFile != null && !logFile.equals(filePath)) opened = open(logFile);
        ARNO.setLevel(level.jul());
        if (logFile == null || opened != null) {
            if (file != null) {
                root.removeHandler(file);
                file.close();
                file = null;
                filePath = null;
            }
            for (Handler h : removedConsoles) root.addHandler(h);
            removedConsoles.clear();
        }
        if (opened != null) {
            for (Handler h : root.getHandlers()) {
                if (h instanceof ConsoleHandler) {
                    root.removeHandler(h);
                    removedConsoles.add(h);
                }
            }
            root.addHandler(opened);
            file = opened;
            filePath = logFile;
        }
        for (Handler h : root.getHandlers()) h.setLevel(level.jul());
    }

    private static Handler open(Path logFile) {
        OutputStream out;
        try {
            Path parent = logFile.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            out = Files.newOutputStream(logFile, StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        } catch (IOException | RuntimeException e) {
            throw ErrorMessage.LOG_FILE_UNWRITABLE.error(e, logFile, e);
        }
        StreamHandler h = new StreamHandler(out, new SimpleFormatter()) {
            @Override
            public synchronized void publish(LogRecord r) {
                super.publish(r);
                flush(); // a line is on disk when the event it tells of is over (and before a crash)
            }
        };
        try {
            h.setEncoding("UTF-8");
        } catch (java.io.UnsupportedEncodingException e) {
            throw new IllegalStateException(e);
        }
        return h;
    }
}
