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
 * The demo content generator: a deterministic journal hierarchy of JATS-like articles with Atom
 * metadata at every level.
 *
 * <pre>
 * DIR/journals/ja/journal.atom                 feed: one entry per volume
 * DIR/journals/ja/v1/volume.atom               feed: one entry per issue
 * DIR/journals/ja/v1/i1/issue.atom             feed: one entry per article
 * DIR/journals/ja/v1/i1/a0001/entry.atom       the article's entry
 * DIR/journals/ja/v1/i1/a0001/article.xml      the article, 30-100 KB
 * DIR/journals/ja/v1/i1/a0001/figures/f1.svg   one small chart per figure
 * </pre>
 *
 * <p>Articles alternate between the journals {@code ja} and {@code jb}. A journal with n articles
 * gets about 1.5 sqrt(n) issues (so issues grow slowly with n, as real ones do) grouped into
 * volumes of four ({@code ja}) or three ({@code jb}) issues, one volume a year, paginated
 * continuously through a volume.
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
   * already hold a {@code journals} folder (so that no stale file from an earlier, larger run
   * survives next to the new tree).
   */
  public static void generate(Path out, int articles, long seed) throws IOException {
    generate(out, articles, seed, n -> {});
  }

  /** As {@link #generate(Path, int, long)}; {@code progress} gets the articles written so far. Returns the bytes written. */
  static long generate(Path out, int articles, long seed, IntConsumer progress) throws IOException {
    if (articles < 1) {
      throw new IllegalArgumentException("articles must be at least 1, not " + articles);
    }
    Path root = out.resolve("journals");
    if (Files.exists(root)) {
      throw new IOException(root + " already exists; generate into an empty folder");
    }
    AtomicInteger done = new AtomicInteger();
    AtomicLong bytes = new AtomicLong();
    Journal[] journals = {Journal.A, Journal.B};
    for (int ji = 0; ji < journals.length; ji++) {
      int count = articles / 2 + (ji == 0 ? articles % 2 : 0);
      if (count > 0) {
        journal(root, journals[ji], count, seed, done, bytes, progress);
      }
    }
    return bytes.get();
  }

  private static void journal(Path root, Journal j, int count, long seed, AtomicInteger done,
      AtomicLong bytes, IntConsumer progress) throws IOException {
    Prose prose = new Prose(j);
    int issues = Math.max(1, Math.min(count, (int) Math.round(1.5 * Math.sqrt(count))));
    int perVolume = j.issuesPerVolume();
    Path dir = root.resolve(j.id());
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
        Article a = Article.draw(j, prose, seed, volume, issueNo, ++number, date, fpage);
        fpage = a.lpage() + 1;
        metas.add(a);
      }
      Path issueDir = dir.resolve("v" + volume).resolve("i" + issueNo);
      metas.parallelStream().forEach(a -> {
        long written = writeArticle(issueDir.resolve(a.id()), a, prose);
        bytes.addAndGet(written);
        progress.accept(done.incrementAndGet());
      });
      AtomWriter.Issue issue = new AtomWriter.Issue(volume, issueNo, date, List.copyOf(metas));
      bytes.addAndGet(write(issueDir.resolve("issue.atom"), AtomWriter.issue(j, issue)));
      volumeIssues.add(issue);
      if (issueNo == perVolume || k == issues - 1) {
        AtomWriter.Volume v = new AtomWriter.Volume(volume, date.getYear(), List.copyOf(volumeIssues));
        bytes.addAndGet(write(dir.resolve("v" + volume).resolve("volume.atom"), AtomWriter.volume(j, v)));
        volumes.add(v);
        volumeIssues.clear();
      }
    }
    bytes.addAndGet(write(dir.resolve("journal.atom"), AtomWriter.journal(j, volumes)));
  }

  private static long writeArticle(Path dir, Article a, Prose prose) {
    try {
      ArticleWriter w = new ArticleWriter(a, prose);
      long n = write(dir.resolve("article.xml"), w.xml());
      n += write(dir.resolve("entry.atom"), AtomWriter.entry(a));
      for (int f = 1; f <= a.figureTitles().size(); f++) {
        n += write(dir.resolve("figures").resolve("f" + f + ".svg"), w.svg(f));
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
