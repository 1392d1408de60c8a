package arno.demo;

import static arno.demo.Xml.el;
import static arno.demo.Xml.esc;

import java.time.LocalDate;
import java.time.format.TextStyle;
import java.util.List;
import java.util.Locale;

/**
 * The Atom entries (RFC 4287) of the demo hierarchy, one per resource, in the store's layout
 * (see {@link Generator}): the entry of the resource at path {@code P} is the file {@code P.atom}.
 *
 * <p>Each entry carries what a client would send to the store (title, dates, authors, its kind
 * as {@code category scheme="urn:arno:kind"}, typed links to other entries with {@code arno:role},
 * and the bibliographic fields as the PRISM elements publishers' feeds carry), plus the links the
 * store would manage itself ({@code self}, {@code up} and one {@code alternate} per variant, with
 * its {@code arno:role}), written as the store writes them so that the same pages work over the
 * files as over the store. A loader ignores those managed links and the store recomputes them.
 * Every href is an absolute store path ({@code /journals/ja/v1.atom}).
 */
final class AtomWriter {
  static final String ATOM = "http://www.w3.org/2005/Atom";
  static final String PRISM = "http://prismstandard.org/namespaces/basic/2.0/";
  static final String ARNO = "urn:arno:atom";
  static final String KIND_SCHEME = "urn:arno:kind";
  private static final String HEADER = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  private static final String NS = " xmlns=\"" + ATOM + "\" xmlns:arno=\"" + ARNO + "\" xmlns:prism=\"" + PRISM + "\"";

  private AtomWriter() {}

  record Issue(int volume, int number, LocalDate date, List<Article> articles) {
    String title() {
      return "Volume " + volume + ", Issue " + number + " ("
          + date.getMonth().getDisplayName(TextStyle.FULL, Locale.ENGLISH) + " " + date.getYear() + ")";
    }

    LocalDate updated() {
      return articles.stream().map(Article::published).max(LocalDate::compareTo).orElse(date);
    }
  }

  record Volume(int number, int year, List<Issue> issues) {
    String title() {
      return "Volume " + number + " (" + year + ")";
    }

    LocalDate updated() {
      return issues.stream().map(Issue::updated).max(LocalDate::compareTo).orElseThrow();
    }
  }

  static String journalPath(Journal j) {
    return "/journals/" + j.id();
  }

  static String volumePath(Journal j, int volume) {
    return journalPath(j) + "/v" + volume;
  }

  static String issuePath(Journal j, int volume, int issue) {
    return volumePath(j, volume) + "/i" + issue;
  }

  static String articlePath(Article a) {
    return issuePath(a.journal(), a.volume(), a.issue()) + "/" + a.id();
  }

  private static String stamp(LocalDate d) {
    return d + "T00:00:00Z";
  }

  /** The opening of an entry at {@code path}: id, title, updated, kind, self and up links. */
  private static StringBuilder open(StringBuilder b, String id, String title, LocalDate updated, String kind, String path) {
    b.append(HEADER).append("<entry").append(NS).append(">\n<id>").append(esc(id)).append("</id>\n");
    el(b, "title", title).append('\n');
    b.append("<updated>").append(stamp(updated)).append("</updated>\n");
    b.append("<category scheme=\"").append(KIND_SCHEME).append("\" term=\"").append(kind).append("\"/>\n");
    b.append("<link rel=\"self\" href=\"").append(path).append(".atom\"/>\n");
    int slash = path.lastIndexOf('/');
    if (slash > 0) {
      b.append("<link rel=\"up\" href=\"").append(path, 0, slash).append(".atom\"/>\n");
    }
    return b;
  }

  private static void variant(StringBuilder b, String role, String type, String href) {
    b.append("<link rel=\"alternate\" arno:role=\"").append(role).append("\" type=\"").append(type)
        .append("\" href=\"").append(href).append("\"/>\n");
  }

  private static void related(StringBuilder b, String role, String href, String title) {
    b.append("<link rel=\"related\" arno:role=\"").append(role).append("\" href=\"").append(href).append('"');
    if (title != null) {
      b.append(" title=\"").append(esc(title)).append('"');
    }
    b.append("/>\n");
  }

  private static void publisher(StringBuilder b, Journal j) {
    b.append("<author>");
    el(b, "name", j.publisher());
    b.append("</author>\n");
  }

  /** The top-level entry {@code /journals}: what the journals hang from. */
  static String journals(String publisher, LocalDate updated) {
    StringBuilder b = new StringBuilder(600);
    open(b, "urn:arno:content:journals", "Journals", updated, "journals", "/journals");
    b.append("<author>");
    el(b, "name", publisher);
    b.append("</author>\n");
    return b.append("</entry>\n").toString();
  }

  static String journal(Journal j, List<Volume> volumes) {
    StringBuilder b = new StringBuilder(1_000);
    open(b, "urn:arno:content:" + j.id(), j.title(), volumes.get(volumes.size() - 1).updated(), "journal", journalPath(j));
    publisher(b, j);
    el(b, "prism:publicationName", j.title()).append('\n');
    b.append("<prism:eIssn>").append(j.issn()).append("</prism:eIssn>\n");
    return b.append("</entry>\n").toString();
  }

  static String volume(Journal j, Volume v) {
    StringBuilder b = new StringBuilder(800);
    open(b, "urn:arno:content:" + j.id() + ":v" + v.number(), v.title(), v.updated(), "volume", volumePath(j, v.number()));
    publisher(b, j);
    b.append("<prism:volume>").append(v.number()).append("</prism:volume>\n")
        .append("<prism:coverDisplayDate>").append(v.year()).append("</prism:coverDisplayDate>\n");
    return b.append("</entry>\n").toString();
  }

  static String issue(Journal j, Issue i) {
    StringBuilder b = new StringBuilder(900);
    open(b, "urn:arno:content:" + j.id() + ":v" + i.volume() + ":i" + i.number(), i.title(), i.updated(), "issue",
        issuePath(j, i.volume(), i.number()));
    publisher(b, j);
    b.append("<summary>").append(i.articles().size()).append(i.articles().size() == 1 ? " article" : " articles")
        .append("</summary>\n<prism:volume>").append(i.volume()).append("</prism:volume>\n<prism:number>")
        .append(i.number()).append("</prism:number>\n<prism:coverDate>").append(i.date()).append("</prism:coverDate>\n");
    return b.append("</entry>\n").toString();
  }

  /** The article's entry: its metadata, its JATS variant, and typed links to its figures and tables. */
  static String article(Article a, List<ArticleWriter.Table> tables) {
    String path = articlePath(a);
    StringBuilder b = new StringBuilder(3_000);
    open(b, "info:doi/" + a.doi(), a.title(), a.published(), "article", path);
    b.append("<published>").append(stamp(a.published())).append("</published>\n");
    for (Article.Author au : a.authors()) {
      b.append("<author>");
      el(b, "name", au.given() + " " + au.surname());
      if (au.corresponding()) {
        el(b, "email", au.email());
      }
      b.append("</author>\n");
    }
    b.append("<category scheme=\"urn:arno:article-type\" term=\"").append(a.type()).append("\" label=\"")
        .append(esc(a.typeLabel())).append("\"/>\n");
    for (String k : a.keywords()) {
      b.append("<category scheme=\"urn:arno:keyword\" term=\"").append(esc(k)).append("\"/>\n");
    }
    el(b, "summary", a.abstractText()).append('\n');
    variant(b, "jats", "application/xml", path + ".xml");
    for (int f = 1; f <= a.figureTitles().size(); f++) {
      related(b, "figure", path + "/f" + f + ".atom", figureTitle(a, f));
    }
    for (int t = 1; t <= tables.size(); t++) {
      related(b, "table", path + "/t" + t + ".atom", tableTitle(tables, t));
    }
    b.append("<prism:doi>").append(a.doi()).append("</prism:doi>\n<prism:volume>").append(a.volume())
        .append("</prism:volume>\n<prism:number>").append(a.issue()).append("</prism:number>\n")
        .append("<prism:startingPage>").append(a.fpage()).append("</prism:startingPage>\n")
        .append("<prism:endingPage>").append(a.lpage()).append("</prism:endingPage>\n");
    return b.append("</entry>\n").toString();
  }

  static String figureTitle(Article a, int f) {
    return "Figure " + f + ". " + a.figureTitles().get(f - 1);
  }

  static String tableTitle(List<ArticleWriter.Table> tables, int t) {
    String title = tables.get(t - 1).title();
    return "Table " + t + ". " + title.substring(0, title.length() - 1);
  }

  /** A figure's entry, with its image variant (SVG). */
  static String figure(Article a, int f) {
    String path = articlePath(a) + "/f" + f;
    StringBuilder b = new StringBuilder(700);
    open(b, "info:doi/" + a.doi() + "#f" + f, figureTitle(a, f), a.published(), "figure", path);
    variant(b, "image", "image/svg+xml", path + ".svg");
    return b.append("</entry>\n").toString();
  }

  /** A table's entry, with its table variant (the JATS table-wrap). */
  static String table(Article a, List<ArticleWriter.Table> tables, int t) {
    String path = articlePath(a) + "/t" + t;
    StringBuilder b = new StringBuilder(700);
    open(b, "info:doi/" + a.doi() + "#t" + t, tableTitle(tables, t), a.published(), "table", path);
    variant(b, "table", "application/xml", path + ".xml");
    return b.append("</entry>\n").toString();
  }
}
