package arno.sites.cluster;

import arno.testkit.Http;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Clients going through the rig's load balancer all the time: writers posting entries through
 * the store API (each acknowledged write remembered with its position) and readers fetching demo
 * pages. Every answer is recorded with its time, so a test can count the errors of a window.
 * {@link #close()} stops the threads (bounded) and fails if a client thread itself broke.
 */
final class Traffic implements AutoCloseable {
    /** The collection the writers create their entries in. */
    static final String COLLECTION = "/store/journals/";
    static final List<String> PAGES = List.of("/journal-a/", "/journal-b/", "/journal-a/authors");
    static final long READER_PAUSE_MS = 15;

    /**
     * One request: sent at {@code nanos}, answered at {@code answered} (System.nanoTime), status 0
     * when there was no answer (the connection failed or timed out).
     */
    record Outcome(long nanos, long answered, String what, int status, String detail) {
        boolean ok() {
            return status >= 200 && status < 300;
        }
    }

    private final URI front;
    private final String account;
    private final String prefix;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    private final ConcurrentLinkedQueue<Throwable> broken = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Outcome> reads = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Outcome> writes = new ConcurrentLinkedQueue<>();
    /** Acknowledged writes: the entry's path in the store API → the position it committed at. */
    final Map<String, Long> acknowledged = new ConcurrentHashMap<>();
    private final AtomicInteger written = new AtomicInteger();
    /** Readers and writers whose number is below these run; the others wait ({@link #active}). */
    private volatile int reading;
    private volatile int writing;
    /**
     * The pause after each request, in ms ({@link #active}): a reader's (never less than
     * {@link #READER_PAUSE_MS}), and a writer's when it is longer than that (writers otherwise
     * write again at once).
     */
    private volatile long pause = READER_PAUSE_MS;

    /** Starts {@code readers} readers and {@code writers} writers; entries are named PREFIX-N. */
    Traffic(URI front, String account, String prefix, int readers, int writers) {
        this.front = front;
        this.account = account;
        this.prefix = prefix;
        this.reading = readers;
        this.writing = writers;
        for (int i = 0; i < readers; i++) {
            int reader = i;
            threads.add(started(new Thread(() -> loop(() -> {
                if (reader < reading) read(PAGES.get(reader % PAGES.size()));
                else Thread.sleep(READER_PAUSE_MS);
            }), "rig-reader-" + i)));
        }
        for (int i = 0; i < writers; i++) {
            int writer = i;
            threads.add(started(new Thread(() -> loop(() -> {
                if (writer < writing) write();
                else Thread.sleep(READER_PAUSE_MS);
                if (pause > READER_PAUSE_MS) Thread.sleep(pause);
            }), "rig-writer-" + i)));
        }
    }

    private static Thread started(Thread t) {
        t.setDaemon(true);
        t.start();
        return t;
    }

    private interface Step {
        void run() throws InterruptedException;
    }

    private void loop(Step step) {
        try {
            while (running.get()) step.run();
        } catch (InterruptedException e) {
            // stopping
        } catch (RuntimeException | Error e) {
            broken.add(e);
        }
    }

    private void read(String page) throws InterruptedException {
        HttpRequest r = HttpRequest.newBuilder(front.resolve(page)).timeout(Duration.ofSeconds(10)).build();
        reads.add(outcome(page, r));
        // A reader is a browser, not a load generator: without a pause, four readers kept both cores
        // busy and a node restarted under them took a minute to start. Each still reads tens of pages a second.
        Thread.sleep(pause);
    }

    private void write() throws InterruptedException {
        String slug = prefix + "-" + written.incrementAndGet();
        String entry = "<entry xmlns='http://www.w3.org/2005/Atom'><title>Rig " + slug + "</title>"
                + "<category scheme='urn:arno:kind' term='journal'/></entry>";
        // A refusal during a database outage takes the pool's connection timeout (5 s), tried twice; a write
        // whose COMMIT the stop cut waits for PostgreSQL's word on it up to the apply timeout (30 s) and one more
        // pool wait before its 503. The client waits longer than that (HAProxy's server timeout: 60 s), or it
        // would give up on an answer the server is bound to give.
        HttpRequest r = HttpRequest.newBuilder(front.resolve(COLLECTION)).timeout(Duration.ofSeconds(50))
                .header("Authorization", Http.basic(account)).header("Slug", slug)
                .header("Content-Type", "application/atom+xml;type=entry")
                .POST(HttpRequest.BodyPublishers.ofString(entry)).build();
        long t = System.nanoTime();
        try {
            HttpResponse<String> a = http.send(r, HttpResponse.BodyHandlers.ofString());
            writes.add(new Outcome(t, System.nanoTime(), slug, a.statusCode(), a.statusCode() == 201 ? "" : a.body()));
            if (a.statusCode() == 201) {
                String location = a.headers().firstValue("Location").orElseThrow(() -> new AssertionError(slug + ": 201 without Location"));
                long position = Long.parseLong(a.headers().firstValue("Arno-Position")
                        .orElseThrow(() -> new AssertionError(slug + ": 201 without Arno-Position")));
                acknowledged.put(URI.create(location).getPath(), position);
            } else {
                Thread.sleep(20); // an outage: do not spin
            }
        } catch (IOException e) {
            writes.add(new Outcome(t, System.nanoTime(), slug, 0, e.toString()));
            Thread.sleep(20);
        }
    }

    private Outcome outcome(String what, HttpRequest r) throws InterruptedException {
        long t = System.nanoTime();
        try {
            HttpResponse<String> a = http.send(r, HttpResponse.BodyHandlers.ofString());
            return new Outcome(t, System.nanoTime(), what, a.statusCode(), a.statusCode() == 200 ? "" : a.body());
        } catch (IOException e) {
            return new Outcome(t, System.nanoTime(), what, 0, e.toString());
        }
    }

    /**
     * Only the first {@code readers} readers and {@code writers} writers run from now on (the
     * others wait), each pausing {@code pauseMs} after a request; or all of them again, at their
     * own pace. A node restarted beside four readers and two writers took 36–46 s to be ready on
     * two cores, its JVM getting a fraction of one; with one of each at full pace, 28–37 s, the two
     * other nodes using half a core each to serve them. One of each, ten requests a second, still
     * shows whether HAProxy sends the node anything before it is ready, and moves the log it
     * catches up on.
     */
    void active(int readers, int writers, long pauseMs) {
        reading = readers;
        writing = writers;
        pause = Math.max(READER_PAUSE_MS, pauseMs);
    }

    /** All the readers and writers again, at their own pace. */
    void allActive() {
        active(Integer.MAX_VALUE, Integer.MAX_VALUE, READER_PAUSE_MS);
    }

    /** The longest an acknowledged write took, in ms. */
    long slowestWrite() {
        return writes.stream().filter(Outcome::ok).mapToLong(o -> (o.answered() - o.nanos()) / 1_000_000).max().orElse(0);
    }

    /** Outcomes that started in [from, to) (System.nanoTime). */
    static List<Outcome> between(Iterable<Outcome> all, long from, long to) {
        List<Outcome> in = new ArrayList<>();
        for (Outcome o : all) if (o.nanos() >= from && o.nanos() < to) in.add(o);
        return in;
    }

    /** The outcomes answered before {@code to}. */
    static List<Outcome> answeredBefore(Iterable<Outcome> all, long to) {
        List<Outcome> in = new ArrayList<>();
        for (Outcome o : all) if (o.answered() < to) in.add(o);
        return in;
    }

    static List<Outcome> errors(List<Outcome> outcomes) {
        return outcomes.stream().filter(o -> !o.ok()).toList();
    }

    /** A line for the test's output: errors of how many, and what they were. */
    static String summary(List<Outcome> outcomes) {
        List<Outcome> errors = errors(outcomes);
        Map<String, Long> kinds = new java.util.TreeMap<>();
        for (Outcome o : errors) {
            String k = o.status() == 0 ? o.detail().replaceFirst(":.*", "") : Integer.toString(o.status());
            kinds.merge(k, 1L, Long::sum);
        }
        return String.format(Locale.ROOT, "%d errors of %d requests %s", errors.size(), outcomes.size(), kinds);
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join(20_000);
            if (t.isAlive()) {
                t.interrupt();
                t.join(5_000);
            }
        }
        if (!broken.isEmpty()) {
            AssertionError e = new AssertionError("a client thread broke: " + broken.peek(), broken.peek());
            throw e;
        }
    }
}
