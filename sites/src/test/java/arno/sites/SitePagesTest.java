package arno.sites;

import static org.assertj.core.api.Assertions.assertThat;

import arno.demo.Generator;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.Serializer;
import net.sf.saxon.s9api.XdmNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every page of both demo sites rendered through the pipeline's public API over generated
 * content ({@link DemoSites}). Expected values are read from the generated files with XPath,
 * never copied from output.
 */
class SitePagesTest {
  @TempDir static Path tmp;
  static Path content;
  static DemoSites h;

  @BeforeAll
  static void setUp() throws Exception {
    content = tmp.resolve("content");
    Generator.generate(content, 24, 5);
    h = new DemoSites(content);
  }

  static String journal(String site) {
    try {
      return h.param(site, "journal");
    } catch (SaxonApiException e) {
      throw new IllegalStateException(e);
    }
  }

  static XdmNode content(String path) throws SaxonApiException {
    return h.parse(content.resolve(path));
  }

  /** Renders, checks the response against response.xsd and the status, returns the response. */
  static XdmNode page(String site, String path, int status) throws Exception {
    arno.pipeline.Exchange x = h.get(site, path);
    XdmNode response = h.last;
    if (status < 500) {
      assertThat(x.error() == null ? null : x.error().code()).as("error of %s%s", site, path)
          .isNotIn(arno.xml.ErrorCode.NO_ROUTE, arno.xml.ErrorCode.NO_SITE);
    }
    DemoSites.validateResponse(response);
    assertThat(h.string(response, "string(/rsp:response/@status)")).as("status of %s%s", site, path)
        .isEqualTo(Integer.toString(status));
    return response;
  }

  static String s(XdmNode n, String xpath) throws SaxonApiException {
    return h.string(n, xpath);
  }

  static List<String> all(XdmNode n, String xpath) throws SaxonApiException {
    return h.strings(n, xpath);
  }

  /** The first article of the first issue of the first volume. */
  static String firstArticle(String site) throws Exception {
    return "/v1/i1/" + numbered("journals/" + journal(site) + "/v1/i1", "a").get(0);
  }

  /**
   * The names of the entries {@code prefix}N.atom in the content folder {@code dir}, in the order
   * of N: the store layout's children of a resource (v1, v2, … or a0001, a0002, …).
   */
  static List<String> numbered(String dir, String prefix) throws Exception {
    try (java.util.stream.Stream<Path> s = java.nio.file.Files.list(content.resolve(dir))) {
      return s.map(p -> p.getFileName().toString()).filter(n -> n.matches(prefix + "\\d+\\.atom"))
          .map(n -> n.substring(0, n.length() - 5))
          .sorted(java.util.Comparator.comparingInt(n -> Integer.parseInt(n.substring(prefix.length()))))
          .toList();
    }
  }

  /**
   * The children {@code prefix}N of the resource {@code dir} as one atom:feed of their entries in
   * the order of N (articles: page order), built here from the entry files, so the expectations
   * read as they did over the feeds of the old layout.
   */
  static XdmNode feed(String dir, String prefix) throws Exception {
    StringBuilder b = new StringBuilder("<feed xmlns='http://www.w3.org/2005/Atom'>");
    for (String name : numbered(dir, prefix)) {
      b.append(java.nio.file.Files.readString(content.resolve(dir + "/" + name + ".atom")).replaceFirst("^<\\?xml[^>]*>", ""));
    }
    return h.saxon.newDocumentBuilder().build(new javax.xml.transform.stream.StreamSource(
        new java.io.StringReader(b.append("</feed>").toString())));
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal-a", "journal-b"})
  void homeListsEveryVolumeNewestFirstWithItsIssues(String site) throws Exception {
    XdmNode home = page(site, "/", 200);
    XdmNode journal = content("journals/" + journal(site) + ".atom");
    XdmNode feed = feed("journals/" + journal(site), "v");
    assertThat(s(home, "string(//h1)")).isEqualTo(s(journal, "string(/atom:entry/atom:title)"));
    assertThat(all(home, "//section[@class='volume']/h2/string()"))
        .containsExactlyElementsOf(all(feed, "reverse(/atom:feed/atom:entry/atom:title/string())"));
    int issues = 0;
    for (String v : numbered("journals/" + journal(site), "v")) {
      issues += numbered("journals/" + journal(site) + "/" + v, "i").size();
    }
    assertThat(all(home, "//ul[@class='issues']/li/a/@href")).hasSize(issues)
        .allMatch(href -> href.matches("/" + site + "/v\\d+/i\\d+"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal-a", "journal-b"})
  void everyLinkFromHomeToAnIssueAndOnToItsArticlesAnswers200(String site) throws Exception {
    XdmNode home = page(site, "/", 200);
    for (String href : all(home, "//ul[@class='issues']/li/a/@href")) {
      String path = href.substring(site.length() + 1);
      XdmNode toc = page(site, path, 200);
      List<String> articles = all(toc, "//main//a[matches(@href, '/a\\d+$')]/@href");
      XdmNode feed = feed("journals/" + journal(site) + path, "a");
      assertThat(articles).hasSize(Integer.parseInt(s(feed, "string(count(/atom:feed/atom:entry))")));
      page(site, articles.get(0).substring(site.length() + 1), 200);
    }
  }

  @Test
  void sharedTocGroupsArticlesByType() throws Exception {
    XdmNode toc = page("journal-a", "/v1/i1", 200);
    XdmNode feed = feed("journals/ja/v1/i1", "a");
    assertThat(all(toc, "//h2[@class='toc-type']/string()"))
        .containsExactlyElementsOf(all(feed, "distinct-values(//atom:category[@scheme='urn:arno:article-type']/@label)"));
    assertThat(all(toc, "//article[@class='toc-item']/h3/a/string()"))
        .containsExactlyInAnyOrderElementsOf(all(feed, "//atom:entry/atom:title/string()"));
    assertThat(s(toc, "exists(//table)")).isEqualTo("false");
  }

  @Test
  void journalBOverridesTheTocWithOneTableInPageOrder() throws Exception {
    XdmNode toc = page("journal-b", "/v1/i1", 200);
    XdmNode feed = feed("journals/jb/v1/i1", "a");
    assertThat(all(toc, "//table[@class='toc-table']/tbody/tr/td[2]/a/string()"))
        .containsExactlyElementsOf(all(feed, "sort(//atom:entry, (), function($e) { xs:integer($e/prism:startingPage) })/atom:title/string()"));
    assertThat(all(toc, "//table[@class='toc-table']/tbody/tr/td[2]/details/p[1]/string()"))
        .containsExactlyInAnyOrderElementsOf(all(feed, "//atom:entry/atom:summary/string()"));
    assertThat(s(toc, "exists(//h2[@class='toc-type'])")).isEqualTo("false");
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal-a", "journal-b"})
  void abstractPageShowsTheFrontMatter(String site) throws Exception {
    String path = firstArticle(site);
    XdmNode page = page(site, path, 200);
    XdmNode article = content("journals/" + journal(site) + path + ".xml");
    assertThat(s(page, "string(//h1)")).isEqualTo(s(article, "normalize-space(//article-meta//article-title)"));
    assertThat(all(page, "//p[@class='authors']/span[@class='author']/normalize-space(text()[1])"))
        .containsExactlyElementsOf(all(article, "//contrib/name/concat(given-names, ' ', surname)"));
    assertThat(all(page, "//ol[@class='affiliations']/li/@id")).containsExactlyElementsOf(all(article, "//aff/@id"));
    assertThat(s(page, "normalize-space(//section[@class='abstract']/p)")).isEqualTo(s(article, "normalize-space(//abstract/p)"));
    assertThat(s(page, "string(//a[@class='doi'])")).isEqualTo("https://doi.org/" + s(article, "string(//article-id[@pub-id-type='doi'])"));
    assertThat(all(page, "//section[@class='figures']//a/@href"))
        .containsExactlyElementsOf(all(article, "//fig/@id ! ('/" + site + path + "/figures/' || .)"));
    assertThat(s(page, "string(//head/meta[@name='citation_publication_date']/@content)"))
        .isEqualTo(s(article, "//article-meta/pub-date ! (year || '/' || month || '/' || day)"));
    assertThat(all(page, "//head/meta[@name='citation_author']/@content"))
        .containsExactlyElementsOf(all(article, "//contrib/name/concat(surname, ', ', given-names)"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal-a", "journal-b"})
  void fullTextRendersTheWholeArticleAndEveryInPageLinkHasATarget(String site) throws Exception {
    String path = firstArticle(site);
    XdmNode page = page(site, path + "/full", 200);
    XdmNode article = content("journals/" + journal(site) + path + ".xml");
    assertThat(all(page, "//main//section[@id][starts-with(@id, 'sec')]/@id")).containsExactlyElementsOf(all(article, "//sec/@id"));
    assertThat(all(page, "//nav[@class='outline']//a/@href"))
        .containsExactlyElementsOf(all(article, "(/article/body/sec/@id ! ('#' || .), '#references')"));
    assertThat(s(page, "string(count(//section[@id='references']/ol/li))")).isEqualTo(s(article, "string(count(//ref))"));
    assertThat(s(page, "string(count(//figure[@class='fig']))")).isEqualTo(s(article, "string(count(//fig))"));
    assertThat(s(page, "string(count(//figure[@class='table']//td))")).isEqualTo(s(article, "string(count(//table-wrap//td))"));
    assertThat(s(page, "string(count(//main//p[ancestor::section[starts-with(@id, 'sec')]]))"))
        .isEqualTo(s(article, "string(count(/article/body//p[not(ancestor::caption)]))"));
    assertThat(s(page, "string(count(//a[contains-token(@class, 'xref')]))")).isEqualTo(s(article, "string(count(/article/body//xref))"));
    assertThat(all(page, "let $ids := //@id return distinct-values(//a[starts-with(@href, '#')]/substring(@href, 2))[not(. = $ids)]"))
        .as("in-page links without a target").isEmpty();
    assertThat(all(page, "//figure[@class='fig']//img/@src"))
        .allMatch(src -> src.matches("/" + site + path + "/figures/f\\d+/image"));
  }

  /**
   * The text the article header and the reference list write part by part, checked whole against
   * the source for every article: references in Vancouver style, affiliations, the citation line
   * with its date (format-date is the reference for j:date), and each in-text link's class and
   * target.
   */
  @ParameterizedTest
  @ValueSource(strings = {"journal-a", "journal-b"})
  void fullTextHeaderAndReferencesReadAsTheSourceSays(String site) throws Exception {
    int articles = 0;
    for (String v : numbered("journals/" + journal(site), "v")) {
      for (String i : numbered("journals/" + journal(site) + "/" + v, "i")) {
        for (String a : numbered("journals/" + journal(site) + "/" + v + "/" + i, "a")) {
          String path = "/" + v + "/" + i + "/" + a;
          XdmNode page = page(site, path + "/full", 200);
          XdmNode article = content("journals/" + journal(site) + path + ".xml");
          assertThat(all(page, "//section[@id='references']/ol/li/string()")).as(path).containsExactlyElementsOf(all(article,
              "//ref/element-citation ! ("
                  + "string-join(person-group/name ! (surname || ' ' || given-names), ', ')"
                  + " || (if (person-group/etal) then ', et al.' else '') || ' (' || year || '). '"
                  + " || (if (@publication-type = 'book') then source || '. ' || string-join((publisher-loc, publisher-name), ': ') || '.'"
                  + "     else article-title || '. ' || source || string-join(volume ! (' ' || .))"
                  + "          || (if (fpage) then ':' || fpage || string-join(lpage ! ('–' || .)) else '') || '.')"
                  + " || string-join(pub-id[@pub-id-type = 'doi'] ! (' doi:' || .)))"));
          assertThat(all(page, "//section[@id='references']/ol/li//a/@href")).as(path)
              .containsExactlyElementsOf(all(article, "//ref/element-citation/pub-id[@pub-id-type = 'doi'] ! ('https://doi.org/' || .)"));
          assertThat(all(page, "//ol[@class='affiliations']/li/string()")).as(path).containsExactlyElementsOf(all(article,
              "//aff ! (label || ' ' || string-join((institution, addr-line, country), ', '))"));
          assertThat(all(page, "//p[@class='authors']/span[@class='author']/sup/string()")).as(path)
              .containsExactlyElementsOf(all(article, "//contrib ! string-join(xref[@ref-type = 'aff'], ',')"));
          assertThat(s(page, "normalize-space(//header[@class='article-header']/p[@class='meta'])")).as(path).isEqualTo(s(article,
              "let $m := /article/front/article-meta, $d := $m/pub-date[1], $doi := $m/article-id[@pub-id-type = 'doi']"
                  + " return string(/article/front/journal-meta//journal-title) || ' ' || $m/volume || '(' || $m/issue || '): '"
                  + " || $m/fpage || '–' || $m/lpage || ' · Published '"
                  + " || format-date(xs:date($d/year || '-' || $d/month || '-' || $d/day), '[D] [MNn] [Y]', 'en', (), ())"
                  + " || ' · https://doi.org/' || $doi"));
          assertThat(all(page, "//main//a[contains-token(@class, 'xref')]/concat(@class, ' ', @href)")).as(path)
              .containsExactlyElementsOf(all(article, "/article/body//xref ! ('xref xref-' || @ref-type || ' #' || @rid)"));
          articles++;
        }
      }
    }
    assertThat(articles).as("articles checked").isPositive();
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal-a", "journal-b"})
  void figurePageShowsTheImageAndWhereItIsCited(String site) throws Exception {
    String path = firstArticle(site);
    XdmNode article = content("journals/" + journal(site) + path + ".xml");
    for (String id : all(article, "//fig/@id/string()")) {
      XdmNode page = page(site, path + "/figures/" + id, 200);
      assertThat(s(page, "string(//figure/@id)")).isEqualTo(id);
      assertThat(s(page, "string(//figure/svg:svg/svg:title)"))
          .isEqualTo(s(content("journals/" + journal(site) + path + "/" + id + ".svg"), "string(/svg:svg/svg:title)"));
      assertThat(s(page, "normalize-space(//figcaption/b)")).isEqualTo(s(article, "normalize-space(//fig[@id='" + id + "']/caption/title)"));
      assertThat(s(page, "string(count(//section[@class='cited-in']/blockquote))"))
          .isEqualTo(s(article, "string(count(//xref[@rid='" + id + "']/ancestor::p[1] / .))"));
      XdmNode image = page(site, path + "/figures/" + id + "/image", 200);
      assertThat(s(image, "string(/rsp:response/rsp:body/@media-type)")).isEqualTo("image/svg+xml");
      assertThat(s(image, "exists(/rsp:response/rsp:body/svg:svg)")).isEqualTo("true");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal-a", "journal-b"})
  void missingOrMalformedResourcesAre404PagesInTheSiteLayout(String site) throws Exception {
    String article = firstArticle(site);
    String siteName = s(page(site, "/", 200), "string(//span[@class='site-name'])");
    for (String path : List.of("/v999/i1", "/v1/i99", "/x1/i1", "/v1/i1/a9999", article.replace("/v1/", "/v9/"),
        article + "/figures/f99", article + "/figures/f99/image", "/v1/i1/..", "/v1/%2e%2e/a0001/full", "/v1/i1/a0001x/full")) {
      XdmNode page = page(site, path, 404);
      assertThat(s(page, "string(//h1)")).as(path).isEqualTo("Not found");
      assertThat(s(page, "string(//span[@class='site-name'])")).isEqualTo(siteName);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal-a", "journal-b"})
  void errorTemplateAnswersWithTheErrorStatusAndHidesDetailsInProduction(String site) throws Exception {
    String error = "<err:error xmlns:err=\"urn:arno:error\" code=\"store-locked\" status=\"503\" id=\"E-12\" processor-code=\"XTDE0640\">"
        + "<err:message>Store unavailable</err:message>"
        + "<err:location uri=\"file:/x.xsl\" line=\"7\" column=\"3\" route=\"toc\" stage=\"1\"/></err:error>";
    XdmNode prod = h.errorPage(site, "/v1/i1", error, false);
    DemoSites.validateResponse(prod);
    assertThat(s(prod, "string(/rsp:response/@status)")).isEqualTo("503");
    assertThat(s(prod, "string(//h1)")).isEqualTo("503 Service unavailable");
    assertThat(s(prod, "string(//p[@class='error-id'])")).contains("E-12");
    assertThat(s(prod, "exists(//section[@class='error-details'])")).isEqualTo("false");
    assertThat(s(prod, "string(//span[@class='logo'] | //a[@class='logo'])")).isNotEmpty();

    XdmNode dev = h.errorPage(site, "/v1/i1", error, true);
    DemoSites.validateResponse(dev);
    assertThat(all(dev, "//section[@class='error-details']//dt/string()"))
        .contains("code", "processor-code", "uri", "line", "column", "route", "stage");
    assertThat(s(dev, "string(//section[@class='error-details']//pre)")).isEqualTo("Store unavailable");
  }

  @Test
  void sitesDifferByTheirOverrides() throws Exception {
    XdmNode a = page("journal-a", "/", 200);
    XdmNode b = page("journal-b", "/", 200);
    assertThat(s(a, "string(//span[@class='site-name'])")).isEqualTo("Journal of Coastal Hydrology");
    assertThat(s(b, "string(//span[@class='site-name'])")).isEqualTo("Materials Informatics Review");
    assertThat(s(a, "string(//a[@class='logo'])")).isEqualTo("JCH");
    assertThat(s(b, "string(//a[@class='logo'])")).isEqualTo("MIR");
    // Style is in static files now: the shared sheet, then the site's own (DemoSitesHttpTest fetches them).
    assertThat(all(a, "//link[@rel='stylesheet']/@href/string()")).containsExactly("/static/journal.css", "/journal-a/static/site.css");
    assertThat(all(b, "//link[@rel='stylesheet']/@href/string()")).containsExactly("/static/journal.css", "/journal-b/static/site.css");
    assertThat(all(a, "//style")).isEmpty();
    assertThat(all(a, "//header//nav/a/string()")).containsExactly("Issues", "Authors");
    assertThat(all(b, "//header//nav/a/string()")).containsExactly("Issues");
    assertThat(h.get("journal-b", "/authors").error().code()).as("journal-b has no /authors route")
        .isEqualTo(arno.xml.ErrorCode.NO_ROUTE);
  }

  @Test
  void authorsIndexListsEveryAuthorOnceWithTheirArticles() throws Exception {
    XdmNode page = page("journal-a", "/authors", 200);
    List<String> names = all(page, "//h3[@class='author']/string()");
    assertThat(names).doesNotHaveDuplicates();
    int entries = 0;
    for (String v : numbered("journals/ja", "v")) {
      for (String i : numbered("journals/ja/" + v, "i")) {
        XdmNode feed = feed("journals/ja/" + v + "/" + i, "a");
        entries += Integer.parseInt(s(feed, "string(count(//atom:entry/atom:author))"));
        for (String name : all(feed, "//atom:entry/atom:author/atom:name/string()")) {
          String[] w = name.split(" ");
          String sortName = w[w.length - 1] + ", " + String.join(" ", java.util.Arrays.copyOf(w, w.length - 1));
          assertThat(names).contains(sortName);
        }
      }
    }
    assertThat(names).isNotEmpty();
    assertThat(s(page, "string(count(//section[@class='letter']//li))")).isEqualTo(Integer.toString(entries));
    assertThat(all(page, "//section[@class='letter']/h2/string()")).isSorted();
  }

  @Test
  void pagesAreDeterministic() throws Exception {
    String path = firstArticle("journal-a") + "/full";
    assertThat(page("journal-a", path, 200).toString()).isEqualTo(page("journal-a", path, 200).toString());
  }

  @ParameterizedTest
  @ValueSource(strings = {"/", "/v1/i1", "/authors"})
  void htmlSerializesAsHtml5WithoutStrayNamespaces(String path) throws Exception {
    XdmNode response = page("journal-a", path, 200);
    XdmNode html = (XdmNode) h.eval(response, "/rsp:response/rsp:body/*").itemAt(0);
    StringWriter w = new StringWriter();
    Serializer ser = h.saxon.newSerializer(w);
    ser.setOutputProperty(Serializer.Property.METHOD, "html");
    ser.setOutputProperty(Serializer.Property.HTML_VERSION, "5");
    ser.serializeNode(html);
    assertThat(w.toString()).startsWith("<!DOCTYPE HTML>");
    assertThat(java.util.regex.Pattern.compile("xmlns(:\\w+)?=\"([^\"]*)\"").matcher(w.toString()).results()
        .map(m -> m.group(2))).allMatch(uri -> uri.startsWith("urn:arno:"));
  }
}
