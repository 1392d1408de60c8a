package arno.server;

import static org.assertj.core.api.Assertions.assertThat;

import arno.batch.BatchOptions;
import arno.batch.BatchService;
import arno.testkit.Http;
import arno.testkit.Wait;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Page work first, as the server wires it: {@link ArnoServer#pagesWaiting} is true while a page
 * request waits for a worker or every worker runs one, and a batch service given it as its page
 * pressure starts no transformation while a page holds the only worker (the alpha site's /gated
 * route, held by {@link GateFilter} until the test opens it), then runs the batch once it is free.
 * Real embedded Tomcat, real batch service mounted on it, over HTTP.
 */
class PagesFirstHttpTest {
    private static final String USER = "tester";
    private static final String PASSWORD = "secret-password";

    @TempDir Path tmp;

    @Test
    void pagesWaitingWhileEveryWorkerRunsAPageOrOneQueues() throws Exception {
        GateFilter.close();
        try (TestServer arno = TestServer.start(TestServer.copy("testroot"), false, 1 << 20, null, 2, 100)) {
            assertThat(arno.server.pagesWaiting()).isFalse();
            CompletableFuture<HttpResponse<String>> first = gated(arno, "first");
            await(() -> arno.server.running() == 1);
            assertThat(arno.server.pagesWaiting()).as("one of two workers busy").isFalse();
            CompletableFuture<HttpResponse<String>> second = gated(arno, "second");
            await(() -> arno.server.running() == 2);
            assertThat(arno.server.pagesWaiting()).as("both workers busy").isTrue();
            GateFilter.open();
            assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            assertThat(second.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            await(() -> !arno.server.pagesWaiting());
        } finally {
            GateFilter.open();
        }
    }

    @Test
    void aBatchStartsNoTransformationWhileAPageHoldsTheOnlyWorker() throws Exception {
        Path files = Files.createDirectories(tmp.resolve("files"));
        Files.writeString(files.resolve("copy.xsl"), """
                <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
                  <xsl:template match="/"><copied><xsl:copy-of select="/*"/></copied></xsl:template>
                </xsl:stylesheet>""");
        Files.writeString(files.resolve("a.xml"), "<article id='a'><title>A</title></article>");
        GateFilter.close();
        try (TestServer arno = TestServer.bind(TestServer.copy("testroot"), false, 1 << 20, null, 1, 100)) {
            // A share so small that giving way is bounded by about 28 hours: only the page ending frees the batch.
            BatchOptions options = BatchOptions.builder(tmp.resolve("batch")).roots(List.of(files)).workers(1)
                    .minShare(1e-6).build().withPagePressure(arno.server::pagesWaiting);
            BatchService.addAccount(options, USER, PASSWORD);
            try (BatchService batch = BatchService.start(options)) {
                arno.server.mount("batch", "/batch/*", batch.endpoint());
                arno.server.serve();
                CompletableFuture<HttpResponse<String>> page = gated(arno, "page");
                await(arno.server::pagesWaiting);

                HttpResponse<String> submitted = arno.send(authorized(HttpRequest.newBuilder(arno.uri("/batch/jobs")))
                        .header("Content-Type", "application/xml")
                        .POST(HttpRequest.BodyPublishers.ofString("<batch xmlns='urn:arno:batch'>"
                                + "<stylesheet href='" + files.resolve("copy.xsl").toUri() + "'/>"
                                + "<input href='" + files.resolve("a.xml").toUri() + "' output='" + files.resolve("out.xml").toUri() + "'/>"
                                + "</batch>")).build());
                assertThat(submitted.statusCode()).as(submitted.body()).isEqualTo(202);
                String location = submitted.headers().firstValue("Location").orElseThrow();
                URI job = URI.create(location).isAbsolute() ? URI.create(location) : arno.uri(location);
                await(() -> status(arno, job).contains("status=\"running\""));
                Thread.sleep(300); // every chance to start the transformation if it wrongly could
                assertThat(status(arno, job)).contains("succeeded=\"0\"");
                assertThat(files.resolve("out.xml")).doesNotExist();
                assertThat(page.isDone()).isFalse();

                GateFilter.open();
                assertThat(page.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
                await(() -> status(arno, job).contains("status=\"completed\""));
                assertThat(status(arno, job)).contains("succeeded=\"1\"");
                assertThat(files.resolve("out.xml")).content().contains("<copied");
            }
        } finally {
            GateFilter.open();
        }
    }

    private static CompletableFuture<HttpResponse<String>> gated(TestServer arno, String name) {
        return arno.client.sendAsync(HttpRequest.newBuilder(arno.uri("/alpha/gated/" + name)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest.Builder authorized(HttpRequest.Builder b) {
        return b.header("Authorization", Http.basic(USER + ":" + PASSWORD));
    }

    private static String status(TestServer arno, URI job) {
        return arno.send(authorized(HttpRequest.newBuilder(job)).GET().build()).body();
    }

    private static void await(BooleanSupplier condition) {
        Wait.upTo(Duration.ofSeconds(30)).until(condition::getAsBoolean);
    }
}
