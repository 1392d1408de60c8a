package arno.demo;

import arno.server.Demo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.IntConsumer;

/**
 * The demo generator as the server's {@link Demo} plugin (registered in
 * {@code META-INF/services/arno.server.Demo}): the server finds it on the class path of
 * {@code ./arno} and never depends on this module.
 */
public final class DemoContent implements Demo {

    @Override
    public boolean hasContent(Path content) {
        return Files.exists(content.resolve("journals")) || Files.exists(content.resolve("journals.atom"));
    }

    @Override
    public long generate(Path content, int articles, long seed, IntConsumer progress) throws IOException {
        return Generator.generate(content, articles, seed, false, progress);
    }

    @Override
    public long generate(Path content, int articles, long seed, boolean large, IntConsumer progress) throws IOException {
        return Generator.generate(content, articles, seed, large, progress);
    }
}
