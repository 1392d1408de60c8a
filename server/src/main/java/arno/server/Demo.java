package arno.server;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.IntConsumer;

/**
 * The demo content generator as a plugin. The server never depends on the demo: the generator
 * lives in the {@code sites} module, which depends on the server and registers an implementation
 * in {@code META-INF/services/arno.server.Demo}. {@code ./arno} (run from a checkout) has it on
 * its class path, so {@code ./arno generate} and a first {@code ./arno serve} in development mode
 * find it through {@link ServiceLoader}; the WAR and a distribution without the sites module
 * have none, and nothing generates content there.
 */
public interface Demo {

    /**
     * Whether {@code content} already holds what {@link #generate} would write (then it must not
     * be generated again: it would collide with, or mix into, what is there).
     */
    boolean hasContent(Path content);

    /**
     * Writes the demo content for {@code articles} articles into {@code content}, which must not
     * hold it yet; the same {@code seed} gives the same bytes. {@code progress} receives the
     * number of articles written so far. Returns the bytes written.
     */
    long generate(Path content, int articles, long seed, IntConsumer progress) throws IOException;

    /**
     * As {@link #generate(Path, int, long, IntConsumer)}; {@code large} asks for articles of 50-150 KB
     * with many references, figures and tables (a generator without them refuses).
     */
    default long generate(Path content, int articles, long seed, boolean large, IntConsumer progress) throws IOException {
        if (large) throw new UnsupportedOperationException("this demo generator has no large articles");
        return generate(content, articles, seed, progress);
    }

    /** The first demo generator on the class path, if any. */
    static Optional<Demo> find() {
        Iterator<Demo> found = ServiceLoader.load(Demo.class, Demo.class.getClassLoader()).iterator();
        return found.hasNext() ? Optional.of(found.next()) : Optional.empty();
    }

    /** What to tell a user who asked for demo content where there is no generator. */
    String MISSING = "the demo generator is not on the class path: it comes with the source checkout"
            + " (module sites), so run ./arno from a checkout";
}
