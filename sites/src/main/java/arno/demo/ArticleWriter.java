package arno.demo;

import static arno.demo.Xml.el;
import static arno.demo.Xml.esc;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes one article as JATS-like XML (the element names and nesting of JATS 1.3 Journal
 * Publishing, no DTD) and its figures as small SVG charts.
 *
 * <p>Size control: a target size is drawn first (inside 30-100 KB with margin), then the front
 * matter and the reference list are written, and body paragraphs are added section by section
 * until the whole reaches the target. Every figure, table and most references are cited from
 * the text with {@code xref}, as in real articles, so that pages exercise link resolution.
 */
final class ArticleWriter {
  static final int MIN_TARGET = 34_000;
  static final int MAX_TARGET = 82_000;
  /** A large article's target (50-150 KB with margin, as real research articles): more references, figures and tables too. */
  static final int LARGE_MIN_TARGET = 56_000;
  static final int LARGE_MAX_TARGET = 140_000;

  private final Article a;
  private final Prose prose;
  private final Rnd r;
  private final boolean large;
  private int refCount;
  /** Each table of the article as written into it: its caption title and its table-wrap element. */
  private final List<Table> tables = new ArrayList<>();

  /** A table of the article: the title of its caption and its {@code table-wrap} as XML. */
  record Table(String title, String xml) {}

  ArticleWriter(Article article, Prose prose) {
    this(article, prose, false);
  }

  /** {@code large}: a target of 50-150 KB, 45-160 references, more subsections (the figures and tables are the article's). */
  ArticleWriter(Article article, Prose prose, boolean large) {
    this.a = article;
    this.prose = prose;
    this.r = new Rnd(article.bodySeed());
    this.large = large;
  }

  String xml() {
    int target = large ? r.between(LARGE_MIN_TARGET, LARGE_MAX_TARGET) : r.between(MIN_TARGET, MAX_TARGET);
    boolean review = a.type().equals("review-article");
    refCount = large ? (review ? r.between(90, 160) : r.between(45, 110)) : review ? r.between(40, 70) : r.between(15, 40);
    String front = front();
    String back = back();
    StringBuilder b = new StringBuilder(target + 8_000);
    b.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .append("<article xmlns:xlink=\"http://www.w3.org/1999/xlink\" article-type=\"")
        .append(a.type()).append("\" dtd-version=\"1.3\" xml:lang=\"en\">\n")
        .append(front);
    body(b, target - back.length());
    b.append(back).append("</article>\n");
    return b.toString();
  }

  private String front() {
    StringBuilder b = new StringBuilder(6_000);
    Journal j = a.journal();
    b.append("<front>\n<journal-meta>\n<journal-id journal-id-type=\"publisher-id\">").append(j.id())
        .append("</journal-id>\n<journal-title-group>");
    el(b, "journal-title", j.title());
    b.append("<abbrev-journal-title abbrev-type=\"publisher\">").append(esc(j.abbreviation()))
        .append("</abbrev-journal-title></journal-title-group>\n<issn pub-type=\"epub\">")
        .append(j.issn()).append("</issn>\n<publisher>");
    el(b, "publisher-name", j.publisher());
    b.append("</publisher>\n</journal-meta>\n<article-meta>\n")
        .append("<article-id pub-id-type=\"doi\">").append(a.doi()).append("</article-id>\n")
        .append("<article-id pub-id-type=\"publisher-id\">").append(a.id()).append("</article-id>\n")
        .append("<article-categories><subj-group subj-group-type=\"heading\">");
    el(b, "subject", a.typeLabel());
    b.append("</subj-group></article-categories>\n<title-group>");
    el(b, "article-title", a.title());
    b.append("</title-group>\n<contrib-group>\n");
    for (Article.Author au : a.authors()) {
      b.append("<contrib contrib-type=\"author\"").append(au.corresponding() ? " corresp=\"yes\"" : "")
          .append("><name>");
      el(b, "surname", au.surname());
      el(b, "given-names", au.given());
      b.append("</name><xref ref-type=\"aff\" rid=\"aff").append(au.affiliation()).append("\">")
          .append(au.affiliation()).append("</xref>");
      if (au.corresponding()) {
        el(b, "email", au.email());
      }
      b.append("</contrib>\n");
    }
    b.append("</contrib-group>\n");
    for (int i = 0; i < a.affiliations().size(); i++) {
      String[] aff = a.affiliations().get(i);
      b.append("<aff id=\"aff").append(i + 1).append("\"><label>").append(i + 1).append("</label>");
      el(b, "institution", aff[0]);
      b.append(", ");
      el(b, "addr-line", aff[1]);
      b.append(", ");
      el(b, "country", aff[2]);
      b.append("</aff>\n");
    }
    date(b, "pub-date", "pub-type=\"epub\"", a.published());
    b.append("<volume>").append(a.volume()).append("</volume>\n<issue>").append(a.issue())
        .append("</issue>\n<fpage>").append(a.fpage()).append("</fpage>\n<lpage>").append(a.lpage())
        .append("</lpage>\n<history>\n");
    date(b, "date", "date-type=\"received\"", a.received());
    date(b, "date", "date-type=\"accepted\"", a.accepted());
    b.append("</history>\n<permissions>\n<copyright-statement>© ").append(a.published().getYear())
        .append(" The Authors</copyright-statement>\n<copyright-year>").append(a.published().getYear())
        .append("</copyright-year>\n<license license-type=\"open-access\" xlink:href=\"https://creativecommons.org/licenses/by/4.0/\">")
        .append("<license-p>This article is distributed under the terms of the Creative Commons Attribution 4.0 License.</license-p></license>\n")
        .append("</permissions>\n<abstract>\n<p>").append(esc(a.abstractText())).append("</p>\n</abstract>\n")
        .append("<kwd-group kwd-group-type=\"author\">");
    for (String k : a.keywords()) {
      el(b, "kwd", k);
    }
    b.append("</kwd-group>\n</article-meta>\n</front>\n");
    return b.toString();
  }

  private static void date(StringBuilder b, String name, String attr, LocalDate d) {
    b.append('<').append(name).append(' ').append(attr).append("><day>")
        .append(String.format("%02d", d.getDayOfMonth())).append("</day><month>")
        .append(String.format("%02d", d.getMonthValue())).append("</month><year>")
        .append(d.getYear()).append("</year></").append(name).append(">\n");
  }

  /**
   * Sections in the IMRaD order with their share of the body; figures and tables go to the
   * Results subsections, one group per subsection, each cited just before it appears.
   */
  private void body(StringBuilder b, int target) {
    String[] titles = {"Introduction", "Materials and methods", "Results", "Discussion", "Conclusions"};
    String[] types = {"intro", "methods", "results", "discussion", "conclusions"};
    double[] shares = {0.15, 0.22, 0.38, 0.19, 0.06};
    int bodyStart = b.length();
    int budget = Math.max(target - bodyStart, 8_000);
    b.append("<body>\n");
    int nextFig = 1;
    int nextTable = 1;
    double reached = 0;
    for (int s = 0; s < titles.length; s++) {
      reached += shares[s];
      int sectionEnd = bodyStart + (int) (budget * reached);
      String sid = "sec" + (s + 1);
      b.append("<sec id=\"").append(sid).append("\" sec-type=\"").append(types[s]).append("\">\n");
      el(b, "title", titles[s]).append('\n');
      if (s == 1 || s == 2) {
        int subs = large ? r.between(3, 6) : r.between(2, 4);
        for (int k = 1; k <= subs; k++) {
          int subEnd = b.length() + (sectionEnd - b.length()) / (subs - k + 1);
          b.append("<sec id=\"").append(sid).append('.').append(k).append("\">\n");
          el(b, "title", prose.sectionTitle(r)).append('\n');
          List<String> floats = new ArrayList<>();
          if (s == 2) {
            int figsHere = k == subs ? a.figureTitles().size() - nextFig + 1
                : Math.min(r.between(0, 2), a.figureTitles().size() - nextFig + 1);
            for (int f = 0; f < figsHere; f++) {
              floats.add("f" + nextFig++);
            }
            int tablesHere = k == subs ? a.tables() - nextTable + 1 : Math.min(r.between(0, 1), a.tables() - nextTable + 1);
            for (int t = 0; t < tablesHere; t++) {
              floats.add("t" + nextTable++);
            }
          }
          paragraph(b, floats);
          for (String id : floats) {
            if (id.startsWith("f")) {
              figure(b, Integer.parseInt(id.substring(1)));
            } else {
              table(b, Integer.parseInt(id.substring(1)));
            }
          }
          while (b.length() < subEnd) {
            paragraph(b, List.of());
          }
          b.append("</sec>\n");
        }
      } else {
        do {
          paragraph(b, List.of());
        } while (b.length() < sectionEnd);
      }
      b.append("</sec>\n");
    }
    b.append("</body>\n");
  }

  private void paragraph(StringBuilder b, List<String> cite) {
    b.append("<p>");
    int n = r.between(4, 8);
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        b.append(' ');
      }
      String species = r.chance(0.05) ? prose.species(r) : null;
      if (species != null) {
        b.append("Stands of <italic>").append(esc(species)).append("</italic> showed ")
            .append(esc(prose.nounPhrase(r)));
      } else {
        b.append(esc(prose.clause(r)));
      }
      if (i == 0 && !cite.isEmpty()) {
        b.append(" (");
        for (int c = 0; c < cite.size(); c++) {
          String id = cite.get(c);
          boolean fig = id.startsWith("f");
          String label = (fig ? "Figure " : "Table ") + id.substring(1);
          b.append(c > 0 ? "; " : "").append("<xref ref-type=\"").append(fig ? "fig" : "table")
              .append("\" rid=\"").append(id).append("\">").append(label).append("</xref>");
        }
        b.append(')');
      } else if (r.chance(0.3)) {
        int first = r.between(1, refCount);
        b.append(" [<xref ref-type=\"bibr\" rid=\"r").append(first).append("\">").append(first).append("</xref>");
        if (r.chance(0.3)) {
          int second = r.between(1, refCount);
          if (second != first) {
            b.append(", <xref ref-type=\"bibr\" rid=\"r").append(second).append("\">").append(second).append("</xref>");
          }
        }
        b.append(']');
      }
      b.append('.');
    }
    b.append("</p>\n");
  }

  private void figure(StringBuilder b, int n) {
    b.append("<fig id=\"f").append(n).append("\" position=\"float\">\n<label>Figure ").append(n)
        .append("</label>\n<caption>");
    el(b, "title", a.figureTitles().get(n - 1) + ".");
    b.append("<p>").append(esc(prose.sentence(r))).append(' ').append(esc(prose.sentence(r)))
        .append("</p></caption>\n<graphic xlink:href=\"").append(a.id()).append("/f").append(n)
        .append(".svg\" mimetype=\"image\" mime-subtype=\"svg+xml\"/>\n</fig>\n");
  }

  /** The tables {@link #xml()} wrote, in order (empty before it runs). */
  List<Table> tables() {
    return List.copyOf(tables);
  }

  private void table(StringBuilder b, int n) {
    int start = b.length();
    int cols = r.between(3, 6);
    int rows = r.between(4, 12);
    b.append("<table-wrap id=\"t").append(n).append("\" position=\"float\">\n<label>Table ").append(n)
        .append("</label>\n<caption>");
    String title = Prose.cap(prose.nounPhrase(r)) + " by site.";
    el(b, "title", title);
    b.append("</caption>\n<table frame=\"hsides\" rules=\"groups\">\n<thead><tr><th>Site</th>");
    String[] units = new String[cols];
    for (int c = 1; c < cols; c++) {
      units[c] = r.pick(a.journal().measures());
      b.append("<th>").append(esc(Prose.cap(r.pick(a.journal().qualities())))).append(" (")
          .append(esc(units[c])).append(")</th>");
    }
    b.append("</tr></thead>\n<tbody>\n");
    for (int row = 1; row <= rows; row++) {
      b.append("<tr><td>").append((char) ('A' + (row - 1) % 26)).append(row > 26 ? row / 26 : "").append("</td>");
      for (int c = 1; c < cols; c++) {
        b.append("<td>").append(r.between(0, 999)).append('.').append(r.below(10)).append(" ± ")
            .append(r.below(50) / 10.0).append("</td>");
      }
      b.append("</tr>\n");
    }
    b.append("</tbody>\n</table>\n<table-wrap-foot><fn><p>Values are means ± standard deviation; ")
        .append(esc(prose.sentence(r))).append("</p></fn></table-wrap-foot>\n</table-wrap>\n");
    tables.add(new Table(title, b.substring(start)));
  }

  private String back() {
    StringBuilder b = new StringBuilder(refCount * 420 + 1_000);
    b.append("<back>\n<ack><p>We thank ").append(esc(r.pick(Prose.GIVEN_NAMES))).append(' ')
        .append(esc(r.pick(Prose.SURNAMES))).append(" for discussions and two anonymous reviewers for their comments. ")
        .append(esc(prose.sentence(r))).append("</p></ack>\n<ref-list>\n<title>References</title>\n");
    int year = a.published().getYear();
    for (int i = 1; i <= refCount; i++) {
      b.append("<ref id=\"r").append(i).append("\"><label>").append(i).append("</label>");
      boolean book = r.chance(0.12);
      b.append("<element-citation publication-type=\"").append(book ? "book" : "journal")
          .append("\"><person-group person-group-type=\"author\">");
      for (int k = r.between(1, 6); k > 0; k--) {
        b.append("<name>");
        el(b, "surname", r.pick(Prose.SURNAMES));
        el(b, "given-names", r.pick(Prose.GIVEN_NAMES).substring(0, 1));
        b.append("</name>");
      }
      if (r.chance(0.2)) {
        b.append("<etal/>");
      }
      int refYear = year - r.between(0, 30);
      b.append("</person-group>");
      if (book) {
        el(b, "source", prose.title(r));
        b.append("<publisher-loc>").append(esc(r.pick(Prose.INSTITUTIONS)[1])).append("</publisher-loc>");
        el(b, "publisher-name", r.pick(new String[] {"Springer", "Elsevier", "Wiley", "Cambridge University Press", "CRC Press"}));
        b.append("<year>").append(refYear).append("</year>");
      } else {
        el(b, "article-title", prose.title(r));
        el(b, "source", r.chance(0.3) ? r.pick(Prose.SOURCES_SHARED) : r.pick(prose.sources()));
        int fpage = r.between(1, 2400);
        b.append("<year>").append(refYear).append("</year><volume>").append(r.between(1, 120))
            .append("</volume><fpage>").append(fpage).append("</fpage><lpage>")
            .append(fpage + r.between(4, 30)).append("</lpage><pub-id pub-id-type=\"doi\">10.")
            .append(r.between(1000, 9999)).append('/').append(Long.toString(r.nextLong() >>> 28, 36))
            .append("</pub-id>");
      }
      b.append("</element-citation></ref>\n");
    }
    b.append("</ref-list>\n</back>\n");
    return b.toString();
  }

  /** A small chart for figure {@code n}: bars for odd figures, a line for even ones. */
  String svg(int n) {
    Rnd f = Rnd.of(a.bodySeed(), n);
    StringBuilder b = new StringBuilder(2_000);
    b.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .append("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 400 240\" width=\"400\" height=\"240\" role=\"img\">\n");
    el(b, "title", "Figure " + n + ". " + a.figureTitles().get(n - 1)).append('\n');
    b.append("<rect x=\"0\" y=\"0\" width=\"400\" height=\"240\" fill=\"#ffffff\"/>\n")
        .append("<path d=\"M40 20V200H390\" fill=\"none\" stroke=\"#333333\" stroke-width=\"1.5\"/>\n");
    int points = f.between(6, 12);
    int step = 340 / points;
    if (n % 2 == 1) {
      for (int i = 0; i < points; i++) {
        int h = f.between(15, 170);
        b.append("<rect x=\"").append(46 + i * step).append("\" y=\"").append(200 - h)
            .append("\" width=\"").append(step - 8).append("\" height=\"").append(h)
            .append("\" fill=\"#4a7fb5\"/>\n");
      }
    } else {
      b.append("<polyline fill=\"none\" stroke=\"#c0504d\" stroke-width=\"2\" points=\"");
      int y = f.between(60, 160);
      for (int i = 0; i < points; i++) {
        y = Math.max(25, Math.min(195, y + f.between(-30, 30)));
        b.append(i > 0 ? " " : "").append(50 + i * step).append(',').append(y);
      }
      b.append("\"/>\n");
    }
    b.append("<text x=\"215\" y=\"228\" font-family=\"sans-serif\" font-size=\"12\" text-anchor=\"middle\">");
    b.append(esc(Prose.cap(a.journal().qualities()[f.below(a.journal().qualities().length)]))).append("</text>\n</svg>\n");
    return b.toString();
  }
}
