package arno.pipeline;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import java.time.Duration;
import java.util.Locale;

/**
 * How fast a request body must arrive: after {@code grace}, at least {@code minBytesPerSecond} on
 * average since the request began (so a client that starts slowly may catch up, and one that
 * sends a byte a second is refused once the grace is over), and all of it within
 * {@code timeLimit}. A body that breaks either rule is {@link ErrorCode#BODY_TOO_SLOW} (408).
 *
 * <p>Why a rate and not only a time limit: a time limit alone lets a client hold a connection and
 * a buffer for the whole limit while sending nothing useful; a rate alone lets a client that sends
 * just above it hold them for ever. Jetty's {@code MinRequestDataRate} is the same idea.
 *
 * @param minBytesPerSecond the least average rate once the grace is over (0: no minimum)
 * @param grace             how long a body may arrive at any rate before the minimum applies
 * @param timeLimit         the longest a body may take, whatever its rate
 */
public record BodyRate(long minBytesPerSecond, Duration grace, Duration timeLimit) {
    /**
     * 8 KB/s after 5 s, 30 s in all: a 10 MB body (the default size limit) needs 1.4 Mbit/s, a
     * form or an XML body of a few KB is never in danger, and a trickling client is refused
     * within seconds of the grace.
     */
    public static final BodyRate DEFAULT = new BodyRate(8 * 1024, Duration.ofSeconds(5), Duration.ofSeconds(30));

    public BodyRate {
        if (minBytesPerSecond < 0) {
            throw ErrorMessage.BODY_RATE_NEGATIVE.error(minBytesPerSecond);
        }
        if (grace == null || grace.isNegative()) throw ErrorMessage.BODY_GRACE_NEGATIVE.error(grace);
        if (timeLimit == null || timeLimit.isNegative() || timeLimit.isZero()) {
            throw ErrorMessage.BODY_TIME_LIMIT.error(timeLimit);
        }
    }

    /**
     * Null while {@code received} bytes after {@code elapsedNanos} keep the rules; else the
     * {@link ErrorCode#BODY_TOO_SLOW} error saying what went wrong.
     */
    public ArnoException tooSlow(long received, long elapsedNanos) {
        if (elapsedNanos >= timeLimit.toNanos()) {
            return ErrorMessage.BODY_NOT_IN_TIME.error(seconds(timeLimit.toNanos()), received);
        }
        long over = elapsedNanos - grace.toNanos();
        if (minBytesPerSecond > 0 && over > 0 && received < minBytesPerSecond * (elapsedNanos / 1e9)) {
            return ErrorCode.BODY_TOO_SLOW.error(received, seconds(elapsedNanos), minBytesPerSecond, seconds(grace.toNanos()));
        }
        return null;
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }
}
