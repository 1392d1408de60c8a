package arno.batch;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** The one way tests reach their files under src/test/resources/arno/batch, and make small articles. */
final class TestResources {
    private TestResources() {}

    static String text(String name) {
        try (InputStream in = TestResources.class.getResourceAsStream("/arno/batch/" + name)) {
            if (in == null) throw new IllegalArgumentException("no test resource " + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Copies a resource into {@code dir} and returns the copy. */
    static Path copy(String name, Path dir) {
        try (InputStream in = TestResources.class.getResourceAsStream("/arno/batch/" + name)) {
            Files.createDirectories(dir);
            Path target = dir.resolve(name);
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A small JATS-like article; {@code title} null leaves the title out. */
    static String article(String id, String title, int sections) {
        StringBuilder s = new StringBuilder("<article id=\"" + id + "\">");
        if (title != null) s.append("<title>").append(title).append("</title>");
        for (int i = 1; i <= sections; i++) s.append("<sec><title>Section ").append(i).append("</title><p>Text.</p></sec>");
        return s.append("</article>").toString();
    }

    static Path write(Path file, String content) {
        try {
            Files.createDirectories(file.getParent());
            return Files.writeString(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
