package arno.demo;

import static arno.demo.Xml.el;
import static arno.demo.Xml.esc;

import java.time.LocalDate;
import java.time.format.TextStyle;
import java.util.List;
import java.util.Locale;

/**
 * Atom (RFC 4287) metadata for every level of the hierarchy, with PRISM elements for the
 * bibliographic fields as publishers' feeds carry them. Every link is relative to the document
 * that holds it, so a content tree can be moved or served under any base URI.
 */
final class AtomWriter {
  static final String ATOM = "http://www.w3.org/2005/Atom";
  static final String PRISM = "http://prismstandard.org/namespaces/basic/2.0/";
  private static final String HEADER = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  private static final String NS = " xmlns=\"" + ATOM + "\" xmlns:prism=\"" + PRISM + "\"";

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

  private static String stamp(LocalDate d) {
    return d + "T00:00:00Z";
  }

  static String journal(Journal j, List<Volume> volumes) {
    StringBuilder b = new StringBuilder(4_000).append(HEADER).append("<feed").append(NS).append(">\n");
    b.append("<id>urn:arno:content:").append(j.id()).append("</id>\n");
    el(b, "title", j.title()).append('\n');
    el(b, "subtitle", j.abbreviation()).append('\n');
    b.append("<updated>").append(stamp(volumes.get(volumes.size() - 1).updated())).append("</updated>\n");
    b.append("<author>");
    el(b, "name", j.publisher());
    b.append("</author>\n<link rel=\"self\" type=\"application/atom+xml\" href=\"journal.atom\"/>\n");
    el(b, "prism:publicationName", j.title()).append('\n');
    b.append("<prism:eIssn>").append(j.issn()).append("</prism:eIssn>\n");
    for (Volume v : volumes) {
      b.append("<entry>\n<id>urn:arno:content:").append(j.id()).append(":v").append(v.number()).append("</id>\n");
      el(b, "title", v.title()).append('\n');
      b.append("<updated>").append(stamp(v.updated())).append("</updated>\n")
          .append("<link rel=\"alternate\" type=\"application/atom+xml\" href=\"v").append(v.number())
          .append("/volume.atom\"/>\n<prism:volume>").append(v.number()).append("</prism:volume>\n")
          .append("<prism:coverDisplayDate>").append(v.year()).append("</prism:coverDisplayDate>\n")
          .append("</entry>\n");
    }
    return b.append("</feed>\n").toString();
  }

  static String volume(Journal j, Volume v) {
    StringBuilder b = new StringBuilder(3_000).append(HEADER).append("<feed").append(NS).append(">\n");
    b.append("<id>urn:arno:content:").append(j.id()).append(":v").append(v.number()).append("</id>\n");
    el(b, "title", v.title()).append('\n');
    b.append("<updated>").append(stamp(v.updated())).append("</updated>\n<author>");
    el(b, "name", j.publisher());
    b.append("</author>\n<link rel=\"self\" type=\"application/atom+xml\" href=\"volume.atom\"/>\n")
        .append("<link rel=\"up\" type=\"application/atom+xml\" href=\"../journal.atom\"/>\n")
        .append("<prism:volume>").append(v.number()).append("</prism:volume>\n");
    for (Issue i : v.issues()) {
      b.append("<entry>\n<id>urn:arno:content:").append(j.id()).append(":v").append(v.number())
          .append(":i").append(i.number()).append("</id>\n");
      el(b, "title", i.title()).append('\n');
      b.append("<updated>").append(stamp(i.updated())).append("</updated>\n")
          .append("<link rel=\"alternate\" type=\"application/atom+xml\" href=\"i").append(i.number())
          .append("/issue.atom\"/>\n<summary>").append(i.articles().size())
          .append(i.articles().size() == 1 ? " article" : " articles").append("</summary>\n")
          .append("<prism:number>").append(i.number()).append("</prism:number>\n")
          .append("<prism:coverDate>").append(i.date()).append("</prism:coverDate>\n</entry>\n");
    }
    return b.append("</feed>\n").toString();
  }

  static String issue(Journal j, Issue i) {
    StringBuilder b = new StringBuilder(2_000 + 2_000 * i.articles().size())
        .append(HEADER).append("<feed").append(NS).append(">\n");
    b.append("<id>urn:arno:content:").append(j.id()).append(":v").append(i.volume()).append(":i")
        .append(i.number()).append("</id>\n");
    el(b, "title", i.title()).append('\n');
    b.append("<updated>").append(stamp(i.updated())).append("</updated>\n<author>");
    el(b, "name", j.publisher());
    b.append("</author>\n<link rel=\"self\" type=\"application/atom+xml\" href=\"issue.atom\"/>\n")
        .append("<link rel=\"up\" type=\"application/atom+xml\" href=\"../volume.atom\"/>\n")
        .append("<prism:volume>").append(i.volume()).append("</prism:volume>\n<prism:number>")
        .append(i.number()).append("</prism:number>\n<prism:coverDate>").append(i.date())
        .append("</prism:coverDate>\n");
    for (Article a : i.articles()) {
      entry(b, a, a.id() + "/", false);
    }
    return b.append("</feed>\n").toString();
  }

  static String entry(Article a) {
    StringBuilder b = new StringBuilder(2_500).append(HEADER);
    entry(b, a, "", true);
    return b.toString();
  }

  /** One article's entry; {@code dir} is the article folder relative to the holding document. */
  private static void entry(StringBuilder b, Article a, String dir, boolean standalone) {
    b.append("<entry").append(standalone ? NS : "").append(">\n")
        .append("<id>info:doi/").append(a.doi()).append("</id>\n");
    el(b, "title", a.title()).append('\n');
    b.append("<published>").append(stamp(a.published())).append("</published>\n<updated>")
        .append(stamp(a.published())).append("</updated>\n");
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
    if (standalone) {
      b.append("<link rel=\"self\" type=\"application/atom+xml;type=entry\" href=\"entry.atom\"/>\n")
          .append("<link rel=\"up\" type=\"application/atom+xml\" href=\"../issue.atom\"/>\n");
    } else {
      b.append("<link rel=\"related\" type=\"application/atom+xml;type=entry\" href=\"").append(dir)
          .append("entry.atom\"/>\n");
    }
    b.append("<link rel=\"alternate\" type=\"application/xml\" href=\"").append(dir).append("article.xml\"/>\n");
    for (int f = 1; f <= a.figureTitles().size(); f++) {
      b.append("<link rel=\"enclosure\" type=\"image/svg+xml\" href=\"").append(dir).append("figures/f")
          .append(f).append(".svg\" title=\"Figure ").append(f).append(". ")
          .append(esc(a.figureTitles().get(f - 1))).append("\"/>\n");
    }
    b.append("<prism:doi>").append(a.doi()).append("</prism:doi>\n<prism:volume>").append(a.volume())
        .append("</prism:volume>\n<prism:number>").append(a.issue()).append("</prism:number>\n")
        .append("<prism:startingPage>").append(a.fpage()).append("</prism:startingPage>\n")
        .append("<prism:endingPage>").append(a.lpage()).append("</prism:endingPage>\n")
        .append("</entry>\n");
  }
}
