package arno.cache;

/**
 * A source of nanoseconds for measuring intervals, injected so that tests control time.
 * Only differences between readings mean anything, as with {@link System#nanoTime()}.
 */
@FunctionalInterface
public interface Ticker {

    long read();

    /** {@link System#nanoTime()}. */
    static Ticker system() {
        return System::nanoTime;
    }
}
