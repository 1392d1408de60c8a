package arno.server;

import arno.pipeline.RequestScope;
import arno.pipeline.SaxStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.xml.sax.ContentHandler;

/**
 * A Java stage for the tests: holds its worker until the test opens the gate, so a test can
 * know that a pipeline is running and when it ends. Open unless a test has closed it.
 */
public final class GateFilter implements SaxStage {
    private static volatile CountDownLatch gate = new CountDownLatch(0);

    static void close() {
        gate = new CountDownLatch(1);
    }

    static void open() {
        gate.countDown();
    }

    @Override
    public ContentHandler open(RequestScope scope, ContentHandler next) {
        try {
            if (!gate.await(30, TimeUnit.SECONDS)) throw new IllegalStateException("the test never opened the gate");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return next;
    }
}
