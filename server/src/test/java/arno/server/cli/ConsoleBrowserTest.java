package arno.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import arno.server.Main;
import arno.testkit.Http;
import arno.testkit.Wait;
import arno.xml.Accounts;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntConsumer;
import java.util.logging.Level;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The admin console at {@code /_arno/} in a real headless Chromium (the Debian packages
 * {@code chromium} and {@code chromium-driver}), driven by Selenium against a real
 * {@code ./arno serve} (embedded Tomcat, the LMDB store with the demo content, the batch service):
 * every page loads with no error in the browser's console (a script error, a refused resource, a
 * Content-Security-Policy violation, a failed request all show there), and the actions work: clearing
 * a site's caches empties them, a query shows its result, a query past the time limit shows the
 * error, cancelling a running batch job cancels it. And over plain HTTP: no credentials is 401 with
 * a challenge, an account without the admin role 403, a POST from another origin 403.
 */
@ExtendWith(CheckoutHome.class)
class ConsoleBrowserTest {
    private static final String ADMIN = "root:console-password";
    private static final String READER = "reader:reader-password";

    @TempDir
    Path tmp;
    Path data;
    Path sites;
    Path batchRoot;
    final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void site() throws IOException {
        data = tmp.resolve("data");
        sites = Files.createDirectories(tmp.resolve("sites"));
        batchRoot = Files.createDirectories(tmp.resolve("batch-root"));
        Path t = ServedSite.write(sites, """
                <cache memory="1M"/>
                <route name="cached" pattern="/cached">
                  <cache/>
                  <template xslt="t.xsl"/>
                </route>
                <route name="fails" pattern="/fails">
                  <template xslt="fails.xsl"/>
                </route>
                """);
        Files.writeString(t.resolve("fails.xsl"), """
                <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
                  <xsl:template match="/">
                    <xsl:sequence select="error(xs:QName('xsl:boom'), 'broken &lt;on purpose&gt;')"
                                  xmlns:xs="http://www.w3.org/2001/XMLSchema"/>
                  </xsl:template>
                </xsl:stylesheet>""");
        // a slow transformation, so that a job with many inputs runs long enough to be cancelled
        Files.writeString(batchRoot.resolve("slow.xsl"), """
                <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
                  <xsl:template match="/">
                    <out><xsl:value-of select="sum((1 to 20000000)[. mod 7 = 0])"/></out>
                  </xsl:template>
                </xsl:stylesheet>""");
        Files.writeString(batchRoot.resolve("in.xml"), "<in/>");
        // documents in the store: the change feed, and something for a long query to read
        try (arno.store.Store store = arno.store.Store.open(data.resolve("store"));
             arno.store.WriteTransaction w = store.write()) {
            for (int i = 0; i < 20; i++) w.put("/docs/" + i + ".xml", ("<doc n='" + i + "'/>").getBytes(StandardCharsets.UTF_8));
            w.commit();
        }
        Accounts accounts = new Accounts(data.resolve("batch/users"));
        accounts.add("root", "console-password", Accounts.ALL_ROLES);
        accounts.add("reader", "reader-password", Set.of(Accounts.Role.READ, Accounts.Role.WRITE));
    }

    @Test
    void everyPageLoadsCleanAndTheActionsWork() {
        serve(port -> {
            // refusals, over plain HTTP
            HttpResponse<String> none = send(port, "GET", "/_arno/", null, null);
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Basic "));
            assertThat(send(port, "GET", "/_arno/", READER, null).statusCode()).isEqualTo(403);
            assertThat(send(port, "GET", "/_arno/console.css", READER, null).statusCode()).isEqualTo(403);
            assertThat(send(port, "POST", "/_arno/caches/clear", ADMIN, "http://evil.example").statusCode()).isEqualTo(403);
            assertThat(send(port, "POST", "/_arno/caches/clear", ADMIN, null).statusCode()).as("no Origin, no Referer").isEqualTo(403);
            assertThat(send(port, "GET", "/_arno/caches/clear?site=t", ADMIN, null).statusCode()).as("never GET").isEqualTo(404);

            // something in the caches and in the recent errors
            assertThat(send(port, "GET", "/t/cached", null, null).statusCode()).isEqualTo(200);
            assertThat(send(port, "GET", "/t/cached", null, null).statusCode()).isEqualTo(200);
            assertThat(send(port, "GET", "/t/fails", null, null).statusCode()).isEqualTo(500);

            ChromeDriver browser = browser();
            try {
                String base = "http://127.0.0.1:" + port + "/_arno/";
                for (String page : List.of("", "sites", "errors", "caches", "store", "batch", "plots")) {
                    browser.get(base + page);
                    assertThat(browser.getTitle()).as(page).endsWith("· Arno console");
                    assertNoConsoleErrors(browser, page);
                }
                // sites and routes
                browser.get(base + "sites");
                assertThat(browser.findElement(By.tagName("main")).getText()).contains("/cached").contains("fails");

                // recent errors: the failure, by its id, with its message escaped
                browser.get(base + "errors");
                WebElement link = browser.findElement(By.cssSelector("main table a"));
                String id = link.getText();
                assertThat(id).startsWith("E-");
                follow(browser, link);
                assertThat(browser.getTitle()).startsWith("Error " + id);
                assertThat(browser.findElement(By.id("message")).getText()).contains("broken <on purpose>");
                assertNoConsoleErrors(browser, "error detail");

                // caches: entries, then none after "clear"
                browser.get(base + "caches");
                assertThat(entries(browser)).isPositive();
                follow(browser, browser.findElement(By.id("clear-t")));
                assertThat(browser.getCurrentUrl()).isEqualTo(base + "caches");
                assertThat(entries(browser)).isZero();
                assertThat(browser.findElement(By.cssSelector("tr[data-tier='pages-memory'] td.bytes")).getText()).isEqualTo("0");
                assertNoConsoleErrors(browser, "caches after clear");

                // the store: its figures and the change feed; the query box: a result, escaped; then a query past the time limit
                browser.get(base + "store");
                assertThat(browser.findElement(By.tagName("main")).getText()).containsPattern("Documents 2[0-9]").contains("put /docs/19.xml");
                query(browser, "<r>{1 + 2}</r>");
                assertThat(browser.findElement(By.id("result")).getText()).contains("<r>3</r>");
                assertNoConsoleErrors(browser, "query result");
                // (the limit is checked at each document read: the stored documents read again and again, for hours;
                // the collection's URI depends on $i so that it cannot be read once outside the loop)
                query(browser, "sum(for $i in 1 to 100000000 return count(collection(concat('store:/docs/', substring('x', 2 + $i mod 2)))))");
                assertThat(browser.findElements(By.id("query-error"))).as(browser.findElement(By.tagName("main")).getText()).hasSize(1);
                assertThat(browser.findElement(By.id("query-error")).getText()).contains("time limit of 10s");
                assertNoConsoleErrors(browser, "query timeout");

                // batch: cancel the running job
                String job = submitSlowJob(port);
                awaitState(browser, base, job, "running");
                follow(browser, browser.findElement(By.id("cancel-" + job)));
                assertThat(browser.getCurrentUrl()).isEqualTo(base + "batch");
                awaitState(browser, base, job, "cancelled");
                assertNoConsoleErrors(browser, "batch after cancel");
            } finally {
                browser.quit();
            }
        });
    }

    /**
     * A writer stores an SVG figure and an XML variant that script the console (the attack of
     * issue 21: a scripted SVG opened by an administrator ran a console action and read its pages).
     * Opened in the browser, with the administrator's credentials on every request, neither runs:
     * the SVG is an attachment (downloaded, not shown) and both are sandboxed, so the script would
     * have no origin to act in. The marker it sets stays unset, the action it sends is never
     * received (the site's cache keeps its entries), and the console still works under its own
     * policy, which allows no script at all.
     */
    @Test
    void aWritersScriptedSvgCannotActInTheConsolesOrigin() {
        serve(port -> {
            String article = "/evil/ej/v1/i1/a1";
            for (String[] e : new String[][] {{"/", "journals", "evil"}, {"/evil/", "journal", "ej"}, {"/evil/ej/", "volume", "v1"},
                    {"/evil/ej/v1/", "issue", "i1"}, {"/evil/ej/v1/i1/", "article", "a1"}, {article + "/", "figure", "f1"}}) {
                HttpResponse<String> r = write(port, "POST", e[0], "application/atom+xml;type=entry",
                        "<entry xmlns='http://www.w3.org/2005/Atom'><title>" + e[2] + "</title>"
                                + "<category scheme='urn:arno:kind' term='" + e[1] + "'/></entry>", "Slug", e[2]);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            }
            HttpResponse<String> svg = write(port, "PUT", article + "/f1.svg", "image/svg+xml",
                    "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><script>" + attack("svg") + "</script></svg>",
                    "If-None-Match", "*");
            assertThat(svg.statusCode()).as(svg.body()).isEqualTo(201);
            HttpResponse<String> xml = write(port, "PUT", article + ".xml", "application/xml",
                    "<article><script xmlns='http://www.w3.org/1999/xhtml'>" + attack("xml") + "</script></article>",
                    "If-None-Match", "*");
            assertThat(xml.statusCode()).as(xml.body()).isEqualTo(201);
            // something the attack's action would clear
            assertThat(send(port, "GET", "/t/cached", null, null).statusCode()).isEqualTo(200);

            ChromeDriver browser = browser();
            try {
                String base = "http://127.0.0.1:" + port;
                browser.get(base + "/_arno/caches");
                long before = entries(browser);
                assertThat(before).isPositive();

                browser.get(base + "/store" + article + "/f1.svg");
                assertThat(marker(browser, "svg")).as("the marker the SVG's script sets in the server's origin").isNull();
                browser.get(base + "/_arno/caches");
                assertThat(entries(browser)).as("the site's cache, which the SVG's script would clear").isEqualTo(before);

                browser.manage().logs().get(LogType.BROWSER); // drop what came before
                browser.get(base + "/store" + article + ".xml");
                assertThat(browser.getPageSource()).as("the XML variant is shown").contains("article");
                List<String> log = new ArrayList<>();
                for (LogEntry e : browser.manage().logs().get(LogType.BROWSER)) log.add(e.getMessage());
                assertThat(log).as("the browser blocked the script").anySatisfy(m -> assertThat(m).contains("sandboxed"));
                browser.get(base + "/_arno/caches");
                assertThat(marker(browser, "xml")).as("the marker the XML's script sets in the server's origin").isNull();
                assertThat(entries(browser)).as("the site's cache, which the XML's script would clear").isEqualTo(before);
                assertNoConsoleErrors(browser, "caches after the stored scripts");
            } finally {
                browser.quit();
            }
            // the console's own policy: no script from anywhere, no framing
            HttpResponse<String> console = send(port, "GET", "/_arno/", ADMIN, null);
            assertThat(console.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(p -> assertThat(p)
                    .contains("default-src 'none'").contains("frame-ancestors 'none'").doesNotContain("script-src")
                    .doesNotContain("unsafe"));
        });
    }

    /**
     * What a stored script does once it runs in the server's origin: sets a marker there, then, as
     * the administrator whose browser runs it, clears a site's caches (a console action).
     */
    private static String attack(String name) {
        return "try { localStorage.setItem('arno-pwned-" + name + "', location.href); } catch (e) { }"
                + " var x = new XMLHttpRequest(); x.open('POST', '/_arno/caches/clear', false);"
                + " x.setRequestHeader('Content-Type', 'application/x-www-form-urlencoded'); x.send('site=t');";
    }

    private static Object marker(ChromeDriver browser, String name) {
        return ((JavascriptExecutor) browser).executeScript("return localStorage.getItem('arno-pwned-" + name + "')");
    }

    private HttpResponse<String> write(int port, String method, String path, String type, String body, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/store" + path))
                .header("Authorization", Http.basic(READER)).header("Content-Type", type)
                .method(method, HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) b.headers(headers);
        return send(b.build());
    }

    private static long entries(ChromeDriver browser) {
        return Long.parseLong(browser.findElement(By.cssSelector("tr[data-tier='pages-memory'] td.entries")).getText());
    }

    private static void query(ChromeDriver browser, String text) {
        WebElement box = browser.findElement(By.id("query"));
        box.clear();
        box.sendKeys(text);
        follow(browser, browser.findElement(By.id("run")));
        assertThat(browser.getTitle()).startsWith("Store");
    }

    /**
     * Clicks a link or submit button and waits for the page it leads to. The driver's own wait after a click can
     * return while a slow answer (the query past its 10 s limit) is still on its way, leaving the old page in view.
     */
    private static void follow(ChromeDriver browser, WebElement element) {
        WebElement old = browser.findElement(By.tagName("html"));
        element.click();
        new WebDriverWait(browser, Duration.ofSeconds(40)).until(ExpectedConditions.and(
                d -> gone(old),
                d -> "complete".equals(((JavascriptExecutor) d).executeScript("return document.readyState"))));
    }

    /**
     * Whether {@code element}'s page has been replaced. Selenium's {@code stalenessOf} knows only its
     * stale-element error; Chromium 156, asked about a node mid-navigation, can answer "Node with given id
     * does not belong to the document" instead (an unknown error), which means the same.
     */
    private static boolean gone(WebElement element) {
        try {
            element.isEnabled();
            return false;
        } catch (org.openqa.selenium.StaleElementReferenceException e) {
            return true;
        } catch (org.openqa.selenium.WebDriverException e) {
            if (e.getMessage() != null && e.getMessage().contains("does not belong to the document")) return true;
            throw e;
        }
    }

    private static void awaitState(ChromeDriver browser, String base, String job, String state) {
        Wait.upTo(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).alias("job " + job + " shown as " + state)
                .until(() -> {
                    browser.get(base + "batch");
                    return browser.findElement(By.cssSelector("tr[data-job='" + job + "'] td.state")).getText();
                }, state::equals);
    }

    private static void assertNoConsoleErrors(ChromeDriver browser, String page) {
        List<String> errors = new ArrayList<>();
        for (LogEntry e : browser.manage().logs().get(LogType.BROWSER)) {
            if (e.getLevel().intValue() >= Level.WARNING.intValue()) errors.add(e.getLevel() + " " + e.getMessage());
        }
        assertThat(errors).as("the browser's console on " + page).isEmpty();
    }

    /** Headless Chromium with a fresh profile, sending the admin's credentials with every request. */
    private ChromeDriver browser() {
        ChromeOptions o = new ChromeOptions();
        o.setBinary("/usr/bin/chromium");
        o.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + tmp.resolve("chromium-profile"));
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        o.setCapability(ChromeOptions.LOGGING_PREFS, logs);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File("/usr/bin/chromedriver")).usingAnyFreePort().build();
        ChromeDriver d = new ChromeDriver(service, o);
        d.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        d.executeCdpCommand("Network.enable", Map.of());
        d.executeCdpCommand("Network.setExtraHTTPHeaders", Map.of("headers", Map.of("Authorization", Http.basic(ADMIN))));
        return d;
    }

    private String submitSlowJob(int port) {
        StringBuilder b = new StringBuilder("<batch xmlns=\"urn:arno:batch\">\n  <stylesheet href=\"slow.xsl\"/>\n");
        for (int i = 0; i < 2000; i++) b.append("  <input href=\"in.xml\" output=\"out/").append(i).append(".xml\"/>\n");
        b.append("</batch>\n");
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/batch/jobs"))
                .header("Authorization", Http.basic(ADMIN)).header("Content-Type", "application/xml")
                .header("Content-Location", batchRoot.toUri().resolve("jobs.xml").toString())
                .POST(HttpRequest.BodyPublishers.ofString(b.toString())).build();
        HttpResponse<String> resp = send(r);
        assertThat(resp.statusCode()).as(resp.body()).isEqualTo(202);
        String location = resp.headers().firstValue("Location").orElseThrow();
        return location.substring(location.lastIndexOf('/') + 1);
    }

    private HttpResponse<String> send(int port, String method, String path, String credentials, String origin) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
        if (credentials != null) b.header("Authorization", Http.basic(credentials));
        if (origin != null) b.header("Origin", origin);
        if (method.equals("POST")) {
            b.header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString("site=t"));
        }
        return send(b.build());
    }

    private HttpResponse<String> send(HttpRequest r) {
        return Http.send(client, r);
    }

    private void serve(IntConsumer during) {
        List<String> a = List.of("serve", "--port", "0", "--data", data.toString(), "--sites", sites.toString(),
                "--articles", "5", "--batch-root", batchRoot.toString());
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(a.toArray(String[]::new), new PrintStream(new ByteArrayOutputStream(), true),
                new PrintStream(err, true, StandardCharsets.UTF_8), Cli.serving(during));
        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
    }
}
