package arno.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import javax.xml.parsers.SAXParserFactory;
import javax.xml.transform.stream.StreamSource;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XdmItem;
import net.sf.saxon.s9api.XdmNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xml.sax.helpers.DefaultHandler;

class GeneratorTest {
  private static final int ARTICLES = 41;
  private static final long SEED = 7;

  @TempDir static Path tmp;
  private static Path content;
  private static final Processor SAXON = new Processor(false);

  @BeforeAll
  static void generateOnce() throws IOException {
    content = tmp.resolve("content");
    Generator.generate(content, ARTICLES, SEED);
  }

  private static List<Path> files(Path root) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(Files::isRegularFile).sorted().toList();
    }
  }

  private static List<Path> files(String suffix) throws IOException {
    return files(content).stream().filter(p -> p.toString().endsWith(suffix)).toList();
  }

  private static XdmNode parse(Path p) throws Exception {
    return SAXON.newDocumentBuilder().build(new StreamSource(p.toFile()));
  }

  private static XPathCompiler xpath() {
    XPathCompiler x = SAXON.newXPathCompiler();
    x.declareNamespace("atom", AtomWriter.ATOM);
    x.declareNamespace("prism", AtomWriter.PRISM);
    x.declareNamespace("xlink", "http://www.w3.org/1999/xlink");
    return x;
  }

  @Test
  void sameArgumentsGiveByteIdenticalTrees() throws IOException {
    Path again = tmp.resolve("again");
    Generator.generate(again, ARTICLES, SEED);
    List<Path> first = files(content);
    List<Path> second = files(again);
    assertThat(second.stream().map(again::relativize).map(Path::toString))
        .containsExactlyElementsOf(first.stream().map(content::relativize).map(Path::toString).toList());
    for (int i = 0; i < first.size(); i++) {
      assertThat(Files.readAllBytes(second.get(i)))
          .as("%s", content.relativize(first.get(i)))
          .isEqualTo(Files.readAllBytes(first.get(i)));
    }
  }

  @Test
  void anotherSeedGivesOtherArticles() throws IOException {
    Path other = tmp.resolve("other-seed");
    Generator.generate(other, 2, SEED + 1);
    Path article = Path.of("journals/ja/v1/i1/a0001/article.xml");
    assertThat(Files.readString(other.resolve(article))).isNotEqualTo(Files.readString(content.resolve(article)));
  }

  @Test
  void articlesAreThirtyToOneHundredKilobytes() throws IOException {
    List<Path> articles = files("article.xml");
    assertThat(articles).hasSize(ARTICLES);
    for (Path a : articles) {
      assertThat(Files.size(a)).as("%s", a).isBetween(30L * 1024, 100L * 1000);
    }
  }

  @Test
  void everyFileIsWellFormedWithoutADoctype() throws Exception {
    SAXParserFactory f = SAXParserFactory.newInstance();
    f.setNamespaceAware(true);
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    List<Path> all = files(content);
    assertThat(all).allMatch(p -> p.toString().matches(".*\\.(xml|atom|svg)"));
    for (Path p : all) {
      f.newSAXParser().parse(p.toFile(), new DefaultHandler());
    }
  }

  @Test
  void journalsSplitTheArticlesIntoVolumesAndIssues() throws Exception {
    XPathCompiler x = xpath();
    int total = 0;
    for (String j : List.of("ja", "jb")) {
      XdmNode journal = parse(content.resolve("journals/" + j + "/journal.atom"));
      int volumes = x.evaluate("count(/atom:feed/atom:entry)", journal).itemAt(0).getStringValue().transform(Integer::parseInt);
      assertThat(volumes).as(j).isGreaterThanOrEqualTo(2);
      for (int v = 1; v <= volumes; v++) {
        XdmNode volume = parse(content.resolve("journals/" + j + "/v" + v + "/volume.atom"));
        for (XdmItem issueLink : x.evaluate("/atom:feed/atom:entry/atom:link[@rel='alternate']/@href", volume)) {
          XdmNode issue = parse(content.resolve("journals/" + j + "/v" + v).resolve(issueLink.getStringValue()));
          int entries = Integer.parseInt(x.evaluate("count(/atom:feed/atom:entry)", issue).itemAt(0).getStringValue());
          assertThat(entries).isPositive();
          total += entries;
          // pages run on without gaps or overlaps inside an issue
          assertThat(x.evaluate("every $e in /atom:feed/atom:entry[position() gt 1] satisfies "
              + "xs:integer($e/prism:startingPage) eq xs:integer($e/preceding-sibling::atom:entry[1]/prism:endingPage) + 1",
              issue).itemAt(0).getStringValue()).isEqualTo("true");
        }
      }
    }
    assertThat(total).isEqualTo(ARTICLES);
    assertThat(files("article.xml")).filteredOn(p -> p.toString().contains("/ja/")).hasSize((ARTICLES + 1) / 2);
  }

  @Test
  void everyAtomLinkResolvesToAFile() throws Exception {
    XPathCompiler x = xpath();
    int links = 0;
    for (Path atom : files(".atom")) {
      for (XdmItem href : x.evaluate("//atom:link/@href", parse(atom))) {
        assertThat(atom.resolveSibling(href.getStringValue()).normalize())
            .as("link %s in %s", href.getStringValue(), content.relativize(atom)).isRegularFile();
        links++;
      }
    }
    assertThat(links).isGreaterThan(ARTICLES * 4);
  }

  private static final String[][] JATS_PARTS = {
    {"title", "exists(/article/front/article-meta/title-group/article-title[normalize-space()])"},
    {"authors", "count(//contrib-group/contrib/name/surname) ge 1"},
    {"affiliations", "every $r in //contrib/xref[@ref-type='aff']/@rid satisfies //aff[@id = $r]"},
    {"abstract", "exists(//abstract/p[normalize-space()])"},
    {"doi", "matches(//article-id[@pub-id-type='doi'], '^10\\.5555/j[ab]\\.\\d{4}\\.\\d{4}$')"},
    {"keywords", "count(//kwd) ge 3"},
    {"sections", "count(/article/body/sec) eq 5 and exists(/article/body/sec/sec)"},
    {"figures", "exists(//fig[@id]/graphic)"},
    {"tables", "exists(//table-wrap[@id]/table/tbody/tr/td)"},
    {"references", "count(//ref-list/ref) ge 15"},
    {"figures cited", "every $f in //fig satisfies //xref[@ref-type='fig'][@rid = $f/@id]"}
  };

  @Test
  void articlesCarryTheJatsStructureAndTheirInternalLinksResolve() throws Exception {
    XPathCompiler x = xpath();
    for (Path a : files("article.xml")) {
      XdmNode doc = parse(a);
      String missing = x.evaluate("string-join((//xref[not(@rid = //*/@id)]/@rid), ' ')", doc).itemAt(0).getStringValue();
      assertThat(missing).as("dangling xref in %s", a).isEmpty();
      for (String[] part : JATS_PARTS) {
        assertThat(x.evaluate(part[1], doc).itemAt(0).getStringValue())
            .as("%s in %s", part[0], content.relativize(a)).isEqualTo("true");
      }
      for (XdmItem g : x.evaluate("//graphic/@xlink:href", doc)) {
        assertThat(a.resolveSibling(g.getStringValue())).isRegularFile();
      }
    }
  }

  @Test
  void entriesRepeatTheArticleMetadata() throws Exception {
    XPathCompiler x = xpath();
    for (Path e : files("entry.atom")) {
      XdmNode entry = parse(e);
      XdmNode article = parse(e.resolveSibling("article.xml"));
      x.declareVariable(new net.sf.saxon.s9api.QName("article"));
      var sel = x.compile("$article//article-meta/article-id[@pub-id-type='doi'] = /atom:entry/prism:doi"
          + " and $article//article-title = /atom:entry/atom:title"
          + " and count($article//contrib) = count(/atom:entry/atom:author)"
          + " and normalize-space($article//abstract) = normalize-space(/atom:entry/atom:summary)").load();
      sel.setContextItem(entry);
      sel.setVariable(new net.sf.saxon.s9api.QName("article"), article);
      assertThat(sel.effectiveBooleanValue()).as("%s", e).isTrue();
    }
  }

  @Test
  void refusesToWriteOverAnEarlierTree() {
    assertThatThrownBy(() -> Generator.generate(content, 3, SEED))
        .hasMessageContaining("journals").hasMessageContaining("already exists");
  }

  @Test
  void theServerFindsTheDemoAsItsPlugin() {
    assertThat(arno.server.Demo.find()).get().isInstanceOf(DemoContent.class);
  }

  @Test
  void commandLineReportsWhatIsWrong() {
    assertThat(cli(2, "generate", "--articles", "ten", "--out", "x")).contains("--articles").contains("ten");
    assertThat(cli(2, "generate", "--articles", "5")).contains("Missing required option: '--out=DIR'");
    assertThat(cli(2, "generate", "--articles", "5", "--out", "x", "--pages", "5")).contains("Unknown options: '--pages'");
    assertThat(cli(1, "generate", "--articles", "0", "--out", "x")).contains("between 1 and 1000000, not 0");
  }

  @Test
  void commandLineGeneratesAndReports() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Path dir = tmp.resolve("cli");
    int status = arno.server.Main.run(new String[] {"generate", "--articles", "3", "--out", dir.toString(), "--seed", "9"},
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("generated 3 articles");
    Set<String> journals = new HashSet<>();
    try (var s = Files.list(dir.resolve("journals"))) {
      s.forEach(p -> journals.add(p.getFileName().toString()));
    }
    assertThat(journals).containsExactlyInAnyOrder("ja", "jb");
    // a second run into the same folder is refused in one line and changes nothing
    assertThat(cli(1, "generate", "--articles", "3", "--out", dir.toString())).contains("already holds demo content");
  }

  private static String cli(int expected, String... args) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = arno.server.Main.run(args, new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    String text = err.toString(StandardCharsets.UTF_8);
    assertThat(status).as(text).isEqualTo(expected);
    assertThat(text).doesNotContain("\tat ");
    return text;
  }
}
