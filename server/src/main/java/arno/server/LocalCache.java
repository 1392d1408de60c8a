package arno.server;

import arno.pipeline.ContextCacheStats;
import arno.pipeline.PageCacheStats;
import arno.pipeline.SiteRegistry;
import arno.xml.ErrorMessage;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code ./arno cache stats} and {@code ./arno cache clear} beside a running server: the command
 * finds the server in the data folder's {@link RunFile} and asks it, over loopback with the run's
 * token (the same rules as {@link LocalLoad}), for its caches' figures or to drop their entries.
 * The answer is tab-separated text, one row per site and tier, which the command lays out as a
 * table; the figures are those of {@link SiteRegistry#cacheStats()} and {@link SiteRegistry#contextStats()}.
 *
 * <pre>
 * GET  /_arno/local/cache                Authorization: Bearer TOKEN   → the rows of {@link #COLUMNS}
 * POST /_arno/local/cache  site=NAME     Authorization: Bearer TOKEN   → "site TAB dropped" rows (no site: every site)
 * </pre>
 */
public final class LocalCache extends HttpServlet {
    public static final String PATH = "/_arno/local/cache";
    /** The columns of a stats row; "-" where a figure does not apply to the tier. */
    public static final List<String> COLUMNS = List.of("SITE", "TIER", "ENTRIES", "BYTES", "HITS", "MISSES", "EVICTIONS",
            "INVALIDATIONS", "P", "NOTE");

    private final SiteRegistry sites;
    private final LocalAccess access;

    public LocalCache(SiteRegistry sites, String token) {
        this.sites = sites;
        this.access = new LocalAccess(token);
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        if (!access.admit(req, resp, Set.of("GET", "POST"))) return;
        String method = req.getMethod();
        StringBuilder out = new StringBuilder();
        if (method.equals("GET")) {
            rows(out);
        } else {
            String site = req.getParameter("site");
            Map<String, Integer> dropped = sites.clearCaches(site == null || site.isBlank() ? null : site);
            if (site != null && !site.isBlank() && dropped.isEmpty()) {
                LocalAccess.refuse(resp, ErrorMessage.NO_CACHES_FOR_SITE.error(site, sites.contextStats().keySet()));
                return;
            }
            dropped.forEach((name, n) -> out.append(name).append('\t').append(n).append('\n'));
        }
        resp.setContentType("text/tab-separated-values; charset=UTF-8");
        resp.setHeader("Cache-Control", "no-store");
        try (OutputStream o = resp.getOutputStream()) {
            o.write(out.toString().getBytes(StandardCharsets.UTF_8));
        }
    }

    private void rows(StringBuilder out) {
        Map<String, PageCacheStats> pages = sites.cacheStats();
        arno.pipeline.PageCacheBudget budget = sites.cacheBudget();
        if (budget != null && !pages.isEmpty()) {
            // Every site's pages in memory together: one ARC, bounded by the server's budget.
            row(out, "*", "pages-budget", budget.entries(), budget.bytes(), -1, -1, -1, -1, budget.arcTarget(),
                    "of a budget of " + budget.budget() + " bytes (pages/@page-cache-memory), shared by " + pages.size() + " sites");
        }
        sites.contextStats().forEach((site, c) -> {
            PageCacheStats p = pages.get(site);
            if (p != null) {
                row(out, site, "pages-memory", p.memory().entries(), p.memory().bytes(), p.memory().hits(), p.misses(),
                        p.memory().evictions(), p.invalidations(), p.memory().arcTarget(),
                        "stale " + p.stale() + ", hit ratio " + String.format(Locale.ROOT, "%.2f", p.hitRatio())
                                + ", cap " + p.memoryCap() + (budget == null ? "" : " within the budget"));
                row(out, site, "pages-disk", p.disk().entries(), p.disk().bytes(), p.disk().hits(), -1,
                        p.disk().evictions(), -1, p.disk().arcTarget(), p.diskFailure() != null
                                ? "memory only: " + p.diskFailure()
                                : "written " + p.disk().writes() + ", corrupt " + p.corrupt() + ", i/o errors " + p.ioErrors());
            }
            ContextCacheStats.Part f = c.fragments();
            row(out, site, "fragments", f.entries(), f.bytes(), f.hits(), f.misses(), f.evictions(), f.invalidations(),
                    f.arcTarget(), "stale " + f.stale());
            ContextCacheStats.Part s = c.sources();
            row(out, site, "sources", s.entries(), s.bytes(), s.hits(), s.misses(), s.evictions(), -1, s.arcTarget(),
                    "fetched " + c.sourceFetches() + ", not modified " + c.sourceNotModified());
            row(out, site, "files", c.files(), -1, -1, -1, -1, -1, -1, "of at most " + c.fileCapacity());
        });
    }

    private static void row(StringBuilder out, String site, String tier, long entries, long bytes, long hits, long misses,
            long evictions, long invalidations, double p, String note) {
        out.append(site).append('\t').append(tier);
        for (long n : new long[] {entries, bytes, hits, misses, evictions, invalidations}) {
            out.append('\t').append(n < 0 ? "-" : Long.toString(n));
        }
        out.append('\t').append(p < 0 ? "-" : String.format(Locale.ROOT, "%.1f", p));
        out.append('\t').append(note.replace('\t', ' ').replace('\n', ' ')).append('\n');
    }

    // ----- The command's side. -----

    /** The stats rows of the server {@code run} names, each split at its tabs. */
    public static List<String[]> stats(RunFile run) {
        return lines(send(run, HttpRequest.newBuilder(run.url().resolve(PATH)).GET(), "cache stats"));
    }

    /** Asks the server {@code run} names to drop the caches' entries of {@code site} (null: every site); rows of site and count. */
    public static List<String[]> clear(RunFile run, String site) {
        String form = site == null ? "" : "site=" + URLEncoder.encode(site, StandardCharsets.UTF_8);
        return lines(send(run, HttpRequest.newBuilder(run.url().resolve(PATH))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)), "cache clear"));
    }

    private static List<String[]> lines(String body) {
        List<String[]> rows = new ArrayList<>();
        for (String line : body.split("\n")) if (!line.isEmpty()) rows.add(line.split("\t", -1));
        return rows;
    }

    private static String send(RunFile run, HttpRequest.Builder request, String what) {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> resp;
        try {
            resp = client.send(request.header("Authorization", "Bearer " + run.token()).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw ErrorMessage.SERVER_UNREACHABLE.error(e, run.pid(), run.url(), e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ErrorMessage.SERVER_INTERRUPTED.error(e, run.url());
        }
        if (resp.statusCode() != 200) throw LocalAccess.refused(run, what, resp.statusCode(), resp.body());
        return resp.body();
    }


}
