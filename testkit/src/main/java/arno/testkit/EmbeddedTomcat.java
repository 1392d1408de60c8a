package arno.testkit;

import jakarta.servlet.Filter;
import jakarta.servlet.Servlet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * The tests' one embedded servlet container: a real Tomcat listening on 127.0.0.1 (an ephemeral
 * port unless one is asked for), with the servlets and filters a test mounts in one context, over
 * real sockets. Closing it stops Tomcat, frees the port and removes its working folder.
 *
 * <pre>{@code
 * try (EmbeddedTomcat tomcat = EmbeddedTomcat.builder().servlet("/store/*", servlet).start()) {
 *     Http.send(client, HttpRequest.newBuilder(tomcat.uri("/store/")).build());
 * }
 * }</pre>
 *
 * Servlets and filters are mounted with async support, as the server mounts the ones that need it.
 */
public final class EmbeddedTomcat implements AutoCloseable {
    private final Tomcat tomcat;
    private final Path base;
    private final String context;
    private final int port;

    private EmbeddedTomcat(Tomcat tomcat, Path base, String context) {
        this.tomcat = tomcat;
        this.base = base;
        this.context = context;
        this.port = tomcat.getConnector().getLocalPort();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The port it listens on. */
    public int port() {
        return port;
    }

    /** {@code http://127.0.0.1:PORT} + the context path + {@code path} (which starts with a slash). */
    public URI uri(String path) {
        return URI.create(url(path));
    }

    /** {@link #uri} as a string. */
    public String url(String path) {
        return "http://127.0.0.1:" + port + context + path;
    }

    @Override
    public void close() {
        try {
            tomcat.stop();
            tomcat.destroy();
        } catch (LifecycleException e) {
            throw new IllegalStateException("Tomcat did not stop", e);
        } finally {
            delete(base);
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // a leftover temporary folder fails no test
        }
    }

    private record Mount<T>(String pattern, T what) {
    }

    /** What to mount, and where. */
    public static final class Builder {
        private String context = "";
        private int port;
        private final List<Mount<Servlet>> servlets = new ArrayList<>();
        private final List<Mount<Filter>> filters = new ArrayList<>();
        private final List<java.util.function.Consumer<Context>> mounts = new ArrayList<>();

        private Builder() {
        }

        /** The context path: {@code ""} (the default) or {@code /name}. */
        public Builder context(String path) {
            if (!path.isEmpty() && (!path.startsWith("/") || path.endsWith("/"))) {
                throw new IllegalArgumentException("a context path is \"\" or /name, not " + path);
            }
            this.context = path;
            return this;
        }

        /** A fixed port, e.g. the one a server had before a restart; 0 (the default) for an ephemeral one. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Mounts {@code servlet} at {@code pattern} ({@code /batch/*}, {@code /}, …) in the context. */
        public Builder servlet(String pattern, Servlet servlet) {
            servlets.add(new Mount<>(pattern, servlet));
            return this;
        }

        /** Puts {@code filter} in front of the requests {@code pattern} matches, in the order they are added. */
        public Builder filter(String pattern, Filter filter) {
            filters.add(new Mount<>(pattern, filter));
            return this;
        }

        /**
         * Mounts what {@code how} adds to the context before Tomcat starts: for a part that mounts
         * itself with its filters (an {@code arno.http.Endpoint}).
         */
        public Builder mount(java.util.function.Consumer<Context> how) {
            mounts.add(how);
            return this;
        }

        /** Starts Tomcat; listening when this returns. */
        public EmbeddedTomcat start() {
            Path base;
            try {
                base = Files.createTempDirectory("arno-tomcat");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Tomcat tomcat = new Tomcat();
            tomcat.setBaseDir(base.toString());
            tomcat.setPort(port);
            tomcat.getConnector().setProperty("address", "127.0.0.1");
            Context ctx = tomcat.addContext(context, null);
            for (int i = 0; i < servlets.size(); i++) {
                String name = "servlet-" + i;
                Tomcat.addServlet(ctx, name, servlets.get(i).what()).setAsyncSupported(true);
                ctx.addServletMappingDecoded(servlets.get(i).pattern(), name);
            }
            for (int i = 0; i < filters.size(); i++) {
                String name = "filter-" + i;
                FilterDef def = new FilterDef();
                def.setFilterName(name);
                def.setFilter(filters.get(i).what());
                def.setAsyncSupported("true");
                ctx.addFilterDef(def);
                FilterMap map = new FilterMap();
                map.setFilterName(name);
                map.addURLPatternDecoded(filters.get(i).pattern());
                ctx.addFilterMap(map);
            }
            mounts.forEach(m -> m.accept(ctx));
            try {
                tomcat.start();
            } catch (LifecycleException e) {
                try {
                    tomcat.destroy();
                } catch (LifecycleException alsoFailed) {
                    e.addSuppressed(alsoFailed);
                }
                delete(base);
                throw new IllegalStateException("Tomcat did not start on 127.0.0.1:" + port, e);
            }
            EmbeddedTomcat started = new EmbeddedTomcat(tomcat, base, context);
            if (started.port() <= 0) {
                // Tomcat logs a failed bind and starts anyway: a test must not talk to nothing
                started.close();
                throw new IllegalStateException("Tomcat could not listen on 127.0.0.1:" + port);
            }
            return started;
        }
    }
}
