package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;

import arno.batch.client.BatchClient;
import java.net.URI;
import java.nio.file.Path;
import org.apache.commons.io.FileUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The documented examples in batch/examples run as the README says. */
class ExampleTest {
    @TempDir static Path tmp;
    static TestServer server;
    static Path examples;

    @BeforeAll static void start() throws Exception {
        server = new TestServer(tmp);
        examples = server.root.resolve("examples");
        FileUtils.copyDirectory(Path.of("examples").toFile(), examples.toFile());
    }

    @AfterAll static void stop() {
        server.close();
    }

    private static String submit(String file) throws Exception {
        BatchClient client = new BatchClient(URI.create(server.url("")), TestServer.USER + ":" + TestServer.PASSWORD);
        URI job = client.submit(examples.resolve(file));
        BatchClient.Status done = client.await(job, s -> { });
        assertThat(done.succeeded()).as(done.summary()).isTrue();
        return job.toString();
    }

    @Test void theArticlesExampleWritesEntriesAndPages() throws Exception {
        submit("articles.batch.xml");
        assertThat(examples.resolve("out/a1.atom")).content()
                .contains("<id>https://journals.example.org/coastal/a1</id>")
                .contains("<category term=\"coasts\"/>")
                .contains("<i>CC BY 4.0</i>");
        assertThat(examples.resolve("out/a2.html")).content().contains("<h1>Groundwater discharge to an estuary</h1>");
    }

    @Test void theChecksExampleFindsTheUntitledSection() throws Exception {
        String job = submit("checks.batch.xml");
        String report = server.get(job + "/report").body();
        assertThat(report).contains("failed-asserts=\"1\"").contains("Every section needs a title.");
    }
}
