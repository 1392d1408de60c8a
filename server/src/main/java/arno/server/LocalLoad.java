package arno.server;

import arno.store.Store;
import arno.store.atom.AtomStore;
import arno.server.store.IndexTasks;
import arno.server.store.StoreTasks;
import arno.xml.ArnoException;
import arno.xml.ErrorMessage;
import arno.xml.XmlPolicy;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code ./arno store load} beside a running server: the command finds the server in the data
 * folder's {@link RunFile} and asks it, over loopback with the run's token, to load the files;
 * the server loads them with the same code the command runs on a stopped store
 * ({@link StoreTasks#load}, {@link StoreTasks#loadResources}), so a load through the server is the
 * load, with its checks, its group commits and the change feed every write gets.
 *
 * <p>Why the server reads the files rather than the command sending them: the caller has proved,
 * by reading the owner-only run file, that it is the data folder's owner, so it gains nothing by
 * naming files to the server; and the load keeps its one implementation. The progress display is
 * the load's own, written as the command would write it ({@code tty=true} redraws in place) and
 * streamed back; the command copies it to its standard error. The stream ends with a NUL and
 * {@code exit N}, the exit status the command would have had; a NUL never occurs in the display.
 * When the command goes away (Ctrl-C), the next write to it fails and stops the load, as Ctrl-C
 * stops a local one: what was committed stays.
 *
 * <pre>
 * POST /_arno/local/store-load        Authorization: Bearer TOKEN
 *      path=ABSOLUTE (repeated) &amp; resources=true|false &amp; prefix=/p &amp; batch=N &amp; tty=true|false &amp; user=NAME
 * </pre>
 */
public final class LocalLoad extends HttpServlet {
    public static final String PATH = "/_arno/local/store-load";
    /** What ends the streamed display: NUL, then the exit status. */
    public static final String END = "\0exit ";

    private static final Logger LOG = Logger.getLogger(LocalLoad.class.getName());

    /** What the commands may ask the server to do with its store. */
    static final List<String> TASKS = List.of("load", "index-add", "index-remove", "index-list", "paths");

    private final AtomStore atom;
    private final LocalAccess access;
    private final XmlPolicy policy;

    /** {@code policy} parses the index configurations the commands name. */
    public LocalLoad(AtomStore atom, String token, XmlPolicy policy) {
        this.atom = atom;
        this.access = new LocalAccess(token);
        this.policy = policy;
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        if (!access.admit(req, resp, Set.of("POST"))) return;
        List<Path> paths = new ArrayList<>();
        String[] given0 = req.getParameterValues("path");
        if (given0 != null) for (String p : given0) paths.add(Path.of(p));
        boolean resources = Boolean.parseBoolean(req.getParameter("resources"));
        boolean tty = Boolean.parseBoolean(req.getParameter("tty"));
        String prefix = req.getParameter("prefix") == null ? "" : req.getParameter("prefix");
        String user = req.getParameter("user") == null ? "arno" : req.getParameter("user");
        int batch;
        try {
            batch = Integer.parseInt(req.getParameter("batch") == null ? "" + StoreTasks.DEFAULT_BATCH : req.getParameter("batch"));
        } catch (NumberFormatException e) {
            LocalAccess.refuse(resp, ErrorMessage.BATCH_NOT_NUMBER.error(req.getParameter("batch")));
            return;
        }

        String task = req.getParameter("task") == null ? "load" : req.getParameter("task");
        String[] names = req.getParameterValues("name");
        if (!TASKS.contains(task)) {
            LocalAccess.refuse(resp, ErrorMessage.NO_SUCH_TASK.error(TASKS, task));
            return;
        }

        resp.setContentType("text/plain; charset=UTF-8");
        resp.setHeader("Cache-Control", "no-store");
        PrintWriter out = new PrintWriter(new Failing(resp.getOutputStream()));
        int status;
        try {
            status = switch (task) {
                case "index-add" -> {
                    if (paths.size() != 1) throw ErrorMessage.INDEX_ADD_ONE_FILE.error();
                    arno.store.IndexConfig added = IndexTasks.read(paths.get(0), policy);
                    // a cluster node's definitions go through the log, to every node
                    if (StoreTasks.clusterCopy(atom.store())) IndexTasks.changeThroughLog(atom, c -> c.with(added), out);
                    else IndexTasks.add(atom.store(), added, out, tty);
                    yield 0;
                }
                case "index-remove" -> {
                    List<String> removed = names == null ? List.of() : List.of(names);
                    if (StoreTasks.clusterCopy(atom.store())) {
                        IndexTasks.changeThroughLog(atom, c -> {
                            for (String n : removed) c = c.without(n);
                            return c;
                        }, out);
                    } else {
                        IndexTasks.remove(atom.store(), removed, out);
                    }
                    yield 0;
                }
                case "index-list" -> {
                    IndexTasks.list(atom.store(), out);
                    yield 0;
                }
                case "paths" -> {
                    IndexTasks.paths(atom.store(), out);
                    yield 0;
                }
                default -> load(paths, resources, prefix, batch, user, out, tty);
            };
        } catch (ArnoException e) {
            out.println("arno: " + e.describe());
            status = e.code().exitStatus();
        } catch (UncheckedIOException e) {
            LOG.info("store load through the server stopped: the command went away (" + e.getCause().getMessage() + ")");
            return;
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "store load through the server failed", e);
            out.println("arno: internal error in the server: " + e + " (its log has the trace)");
            status = 1;
        }
        try {
            out.print(END + status + "\n");
            out.flush();
        } catch (UncheckedIOException e) {
            LOG.info("store load through the server: the command went away before its end");
        }
    }

    private int load(List<Path> paths, boolean resources, String prefix, int batch, String user, PrintWriter out,
            boolean tty) {
        if (resources) {
            if (paths.size() != 1 || !prefix.isEmpty()) {
                throw ErrorMessage.RESOURCES_AT_ROOT.error();
            }
            StoreTasks.loadResources(atom, paths.get(0), user, out, tty);
            return 0;
        }
        StoreTasks.prefix(prefix);
        List<StoreTasks.Input> inputs = StoreTasks.inputs(paths, prefix);
        Store store = atom.store();
        StoreTasks.Loaded loaded = StoreTasks.load(store, inputs, batch, out, tty);
        return loaded.failed() == 0 ? 0 : 1;
    }

    /**
     * What the command asks for: a task ({@link #TASKS}), its files (made absolute), the load's
     * options, index names and who asks.
     */
    public record Request(String task, List<Path> paths, boolean resources, String prefix, int batch, String user, boolean tty,
                          List<String> names) {
        /** A load. */
        public Request(List<Path> paths, boolean resources, String prefix, int batch, String user, boolean tty) {
            this("load", paths, resources, prefix, batch, user, tty, List.of());
        }

        /** An index or path-summary task: index-add (one file), index-remove (names), index-list, paths. */
        public static Request task(String task, List<Path> paths, List<String> names, boolean tty) {
            return new Request(task, paths, false, "", StoreTasks.DEFAULT_BATCH, "arno", tty, names);
        }

        String form() {
            StringBuilder b = new StringBuilder();
            add(b, "task", task);
            for (String n : names) add(b, "name", n);
            for (Path p : paths) add(b, "path", p.toAbsolutePath().normalize().toString());
            add(b, "resources", Boolean.toString(resources));
            add(b, "prefix", prefix);
            add(b, "batch", Integer.toString(batch));
            add(b, "user", user);
            add(b, "tty", Boolean.toString(tty));
            return b.toString();
        }

        private static void add(StringBuilder b, String name, String value) {
            if (b.length() > 0) b.append('&');
            b.append(name).append('=').append(URLEncoder.encode(value, StandardCharsets.UTF_8));
        }
    }

    /**
     * The command's side: sends {@code request} to the server {@code run} names, copies the load's
     * display to {@code err} as it comes, and returns the exit status the load ended with.
     */
    public static int request(RunFile run, Request request, PrintWriter err) {
        URI uri = run.url().resolve(PATH);
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpRequest post = HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + run.token())
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(request.form())).build();
        HttpResponse<InputStream> resp;
        try {
            resp = client.send(post, HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw ErrorMessage.STORE_HOLDER_UNREACHABLE.error(e, run.pid(), run.url(), e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ErrorMessage.CONNECT_INTERRUPTED.error(e, run.url());
        }
        try (InputStream body = resp.body();
                Reader r = new InputStreamReader(body, StandardCharsets.UTF_8)) {
            if (resp.statusCode() != 200) {
                throw LocalAccess.refused(run, "the " + request.task(), resp.statusCode(), new String(body.readAllBytes(), StandardCharsets.UTF_8));
            }
            // Copied as it comes (a redrawn progress line has no newline); the end marker is NUL, never displayed.
            char[] buf = new char[4096];
            StringBuilder tail = null;
            int n;
            while ((n = r.read(buf)) > 0) {
                int from = 0;
                if (tail == null) {
                    int nul = indexOf(buf, n, '\0');
                    if (nul < 0) {
                        err.write(buf, 0, n);
                        err.flush();
                        continue;
                    }
                    err.write(buf, 0, nul);
                    err.flush();
                    tail = new StringBuilder();
                    from = nul;
                }
                tail.append(buf, from, n - from);
            }
            if (tail == null || !tail.toString().startsWith(END)) {
                throw ErrorMessage.LOAD_CUT_SHORT.error(run.url());
            }
            return Integer.parseInt(tail.substring(END.length()).strip());
        } catch (IOException e) {
            throw ErrorMessage.LOAD_CONNECTION_BROKE.error(e, run.url(), e.getMessage());
        }
    }

    private static int indexOf(char[] b, int n, char c) {
        for (int i = 0; i < n; i++) if (b[i] == c) return i;
        return -1;
    }



    /**
     * A writer to the response that throws when the client has gone: {@link PrintWriter} would
     * swallow the failure and the load would go on for no one.
     */
    private static final class Failing extends Writer {
        private final Writer out;

        Failing(OutputStream o) {
            this.out = new OutputStreamWriter(o, StandardCharsets.UTF_8);
        }

        @Override
        public void write(char[] b, int off, int len) {
            try {
                out.write(b, off, len);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void flush() {
            try {
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void close() {
            flush();
        }
    }
}
