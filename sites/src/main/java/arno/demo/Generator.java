package arno.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;

/**
 * The demo content generator: a deterministic journal hierarchy of JATS-like articles, written in
 * the store's resource layout (an entry {@code P.atom}, its variants {@code P.EXT}, its children
 * under {@code P/}), so that the same folder is served as files and loaded into the store by the
 * store's own write path.
 *
 * <pre>
 * DIR/journals.atom                          the top-level entry          kind journals
 * DIR/journals/ja.atom                       a journal                    kind journal
 * DIR/journals/ja/v1.atom                    a volume                     kind volume
 * DIR/journals/ja/v1/i1.atom                 an issue                     kind issue
 * DIR/journals/ja/v1/i1/a0001.atom           an article                   kind article
 * DIR/journals/ja/v1/i1/a0001.xml              its JATS variant, 30-100 KB (large: 50-150 KB)
 * DIR/journals/ja/v1/i1/a0001/f1.atom        a figure                     kind figure
 * DIR/journals/ja/v1/i1/a0001/f1.svg           its image variant, a small chart
 * DIR/journals/ja/v1/i1/a0001/t1.atom        a table                      kind table
 * DIR/journals/ja/v1/i1/a0001/t1.xml           its table variant (the JATS table-wrap)
 * </pre>
 *
 * <p>Articles alternate between the journals {@code ja} and {@code jb}. A journal with n articles
 * gets about 1.5 sqrt(n) issues (so issues grow slowly with n, as real ones do) grouped into
 * volumes of four ({@code ja}) or three ({@code jb}) issues, one volume a year, paginated
 * continuously through a volume. What each entry carries is described in {@link AtomWriter}.
 *
 * <p>Determinism: all randomness comes from {@link Rnd} streams keyed by (seed, journal, article
 * number), text is built without locale-dependent formatting, and files are written with LF
 * line ends in UTF-8. The same arguments therefore give byte-identical trees, whichever thread
 * wrote which article. Article bodies, the bulk of the work, are written in parallel.
 *
 * <p>The command line ({@code ./arno generate}) and the first {@code ./arno serve} reach it through
 * {@link DemoContent}, the server's {@code arno.server.Demo} plugin.
 */
public final class Generator {
  private Generator() {}

  /**
   * Writes the content tree for {@code articles} articles under {@code out}, which must not
   * already hold a {@code journals} folder or entry (so that no stale file from an earlier, larger
   * run survives next to the new tree).
   */
  public static void generate(Path out, int articles, long seed) throws IOException {
    generate(out, articles, seed, false, n -> {});
  }

  /**
   * As {@link #generate(Path, int, long)}; {@code large} articles are 50-150 KB with 45-160
   * references, 4-11 figures and 3-7 tables (real research articles' sizes), the default ones
   * 30-100 KB. The default articles are the same whether or not this option exists.
   */
  public static void generate(Path out, int articles, long seed, boolean large) throws IOException {
    generate(out, articles, seed, large, n -> {});
  }

  /**
   * Receives each generated document: its store path ({@code /journals/ja/v1/i1/a0001.xml}) and
   * text; returns the bytes it wrote. Called from several threads at once (article bodies are
   * generated in parallel), each document once, an article's documents together.
   */
  public interface Sink {
    long put(String path, String text) throws IOException;
  }

  /** As {@link #generate(Path, int, long)}; {@code progress} gets the articles written so far. Returns the bytes written. */
  static long generate(Path out, int articles, long seed, boolean large, IntConsumer progress) throws IOException {
    if (articles < 1) {
      throw new IllegalArgumentException("articles must be at least 1, not " + articles);
    }
    Path root = out.resolve("journals");
    for (Path p : List.of(root, out.resolve("journals.atom"))) {
      if (Files.exists(p)) {
        throw new IOException(p + " already exists; generate into an empty folder");
      }
    }
    return generate(articles, seed, large, (path, text) -> write(out.resolve(path.substring(1)), text), progress);
  }

  /**
   * The same documents as {@link #generate(Path, int, long)} writes, handed to {@code sink} instead
   * of files (a benchmark stores a million articles without writing them out first). Returns the
   * bytes the sink wrote.
   */
  public static long generate(int articles, long seed, Sink sink, IntConsumer progress) throws IOException {
    return generate(articles, seed, false, sink, progress);
  }

  /** As {@link #generate(int, long, Sink, IntConsumer)}, of large articles when {@code large}. */
  public static long generate(int articles, long seed, boolean large, Sink sink, IntConsumer progress) throws IOException {
    if (articles < 1) {
      throw new IllegalArgumentException("articles must be at least 1, not " + articles);
    }
    AtomicInteger done = new AtomicInteger();
    AtomicLong bytes = new AtomicLong();
    Journal[] journals = {Journal.A, Journal.B};
    LocalDate updated = LocalDate.MIN;
    for (int ji = 0; ji < journals.length; ji++) {
      int count = articles / 2 + (ji == 0 ? articles % 2 : 0);
      if (count > 0) {
        LocalDate u = journal(sink, journals[ji], count, seed, large, done, bytes, progress);
        updated = u.isAfter(updated) ? u : updated;
      }
    }
    bytes.addAndGet(sink.put("/journals.atom", AtomWriter.journals(journals[0].publisher(), updated)));
    return bytes.get();
  }

  /** Writes one journal's entries to {@code out}; returns the journal's updated date. */
  private static LocalDate journal(Sink out, Journal j, int count, long seed, boolean large, AtomicInteger done,
      AtomicLong bytes, IntConsumer progress) throws IOException {
    Prose prose = new Prose(j);
    int issues = Math.max(1, Math.min(count, (int) Math.round(1.5 * Math.sqrt(count))));
    int perVolume = j.issuesPerVolume();

    List<AtomWriter.Volume> volumes = new ArrayList<>();
    List<AtomWriter.Issue> volumeIssues = new ArrayList<>();
    int number = 0;
    int fpage = 1;
    for (int k = 0; k < issues; k++) {
      int volume = k / perVolume + 1;
      int issueNo = k % perVolume + 1;
      if (issueNo == 1) {
        fpage = 1;
      }
      LocalDate date = LocalDate.of(j.firstYear() + volume - 1, 1 + (issueNo - 1) * 12 / perVolume, 1);
      int size = (int) ((long) (k + 1) * count / issues - (long) k * count / issues);
      List<Article> metas = new ArrayList<>(size);
      for (int n = 0; n < size; n++) {
        Article a = Article.draw(j, prose, seed, volume, issueNo, ++number, date, fpage, large);
        fpage = a.lpage() + 1;
        metas.add(a);
      }
      metas.parallelStream().forEach(a -> {
        long written = writeArticle(out, a, prose, large);
        bytes.addAndGet(written);
        progress.accept(done.incrementAndGet());
      });
      AtomWriter.Issue issue = new AtomWriter.Issue(volume, issueNo, date, List.copyOf(metas));
      bytes.addAndGet(out.put(AtomWriter.issuePath(j, volume, issueNo) + ".atom", AtomWriter.issue(j, issue)));
      volumeIssues.add(issue);
      if (issueNo == perVolume || k == issues - 1) {
        AtomWriter.Volume v = new AtomWriter.Volume(volume, date.getYear(), List.copyOf(volumeIssues));
        bytes.addAndGet(out.put(AtomWriter.volumePath(j, volume) + ".atom", AtomWriter.volume(j, v)));
        volumes.add(v);
        volumeIssues.clear();
      }
    }
    bytes.addAndGet(out.put(AtomWriter.journalPath(j) + ".atom", AtomWriter.journal(j, volumes)));
    return volumes.get(volumes.size() - 1).updated();
  }

  /** An article's entry and JATS, and the entries and variants of its figures and tables. */
  private static long writeArticle(Sink out, Article a, Prose prose, boolean large) {
    try {
      String path = AtomWriter.articlePath(a);
      ArticleWriter w = new ArticleWriter(a, prose, large);
      long n = out.put(path + ".xml", w.xml());
      List<ArticleWriter.Table> tables = w.tables();
      n += out.put(path + ".atom", AtomWriter.article(a, tables));
      for (int f = 1; f <= a.figureTitles().size(); f++) {
        n += out.put(path + "/f" + f + ".atom", AtomWriter.figure(a, f));
        n += out.put(path + "/f" + f + ".svg", w.svg(f));
      }
      for (int t = 1; t <= tables.size(); t++) {
        n += out.put(path + "/t" + t + ".atom", AtomWriter.table(a, tables, t));
        n += out.put(path + "/t" + t + ".xml", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + tables.get(t - 1).xml());
      }
      return n;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long write(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    byte[] data = text.getBytes(StandardCharsets.UTF_8);
    Files.write(file, data);
    return data.length;
  }
}
