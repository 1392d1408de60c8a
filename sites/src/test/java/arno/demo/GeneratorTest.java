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
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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

  /** The articles' JATS variants: {@code …/v1/i1/a0001.xml}. */
  private static List<Path> articles() throws IOException {
    return files(content).stream().filter(p -> p.getFileName().toString().matches("a\\d+\\.xml")).toList();
  }

  /** The article entries: {@code …/v1/i1/a0001.atom}. */
  private static List<Path> articleEntries() throws IOException {
    return files(content).stream().filter(p -> p.getFileName().toString().matches("a\\d+\\.atom")).toList();
  }

  /** The entries named {@code prefix}N.atom directly in {@code dir}, in the order of N. */
  private static List<Path> numbered(Path dir, String prefix) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().matches(prefix + "\\d+\\.atom"))
          .sorted(java.util.Comparator.comparingInt(p -> Integer.parseInt(p.getFileName().toString().replaceAll("\\D", ""))))
          .toList();
    }
  }

  /** The file a stored href ({@code /journals/ja/v1.atom}) names in the content folder. */
  private static Path stored(String href) {
    return content.resolve(href.substring(1));
  }

  private static String eval(String expression, XdmNode context) throws Exception {
    return xpath().evaluate(expression, context).itemAt(0).getStringValue();
  }

  private static XdmNode parse(Path p) throws Exception {
    return SAXON.newDocumentBuilder().build(new StreamSource(p.toFile()));
  }

  private static XPathCompiler xpath() {
    XPathCompiler x = SAXON.newXPathCompiler();
    x.declareNamespace("atom", AtomWriter.ATOM);
    x.declareNamespace("prism", AtomWriter.PRISM);
    x.declareNamespace("xlink", "http://www.w3.org/1999/xlink");
    x.declareNamespace("arno", AtomWriter.ARNO);
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
  void aSinkGetsTheDocumentsTheFilesHold() throws IOException {
    Map<String, String> got = new ConcurrentHashMap<>();
    long bytes = Generator.generate(ARTICLES, SEED, (path, text) -> {
      assertThat(got.put(path, text)).as("%s handed over twice", path).isNull();
      return text.getBytes(StandardCharsets.UTF_8).length;
    }, n -> { });
    List<Path> files = files(content);
    assertThat(got.keySet()).containsExactlyInAnyOrderElementsOf(
        files.stream().map(f -> "/" + content.relativize(f).toString().replace('\\', '/')).toList());
    long sizes = 0;
    for (Path f : files) {
      assertThat(got.get("/" + content.relativize(f).toString().replace('\\', '/'))).isEqualTo(Files.readString(f));
      sizes += Files.size(f);
    }
    assertThat(bytes).isEqualTo(sizes);
  }

  @Test
  void anotherSeedGivesOtherArticles() throws IOException {
    Path other = tmp.resolve("other-seed");
    Generator.generate(other, 2, SEED + 1);
    Path article = Path.of("journals/ja/v1/i1/a0001.xml");
    assertThat(Files.readString(other.resolve(article))).isNotEqualTo(Files.readString(content.resolve(article)));
  }

  @Test
  void articlesAreThirtyToOneHundredKilobytes() throws IOException {
    List<Path> articles = articles();
    assertThat(articles).hasSize(ARTICLES);
    for (Path a : articles) {
      assertThat(Files.size(a)).as("%s", a).isBetween(30L * 1024, 100L * 1000);
    }
  }

  /**
   * The default articles are pinned: other benchmarks compare figures across runs on them, so no
   * option added to the generator may change them. The digest is of the tree that the generator
   * wrote before --size existed (checked then against a build of that commit, byte for byte).
   */
  @Test
  void theDefaultArticlesAreThoseOfEarlierBuilds() throws Exception {
    assertThat(digest(content)).isEqualTo(DEFAULT_TREE_DIGEST);
  }

  private static final String DEFAULT_TREE_DIGEST = "774da5e5392a10deddcab624d9cdf484d9a23bd2c940cc5b8577bb181a9d7fa3";

  /** SHA-256 over every file's relative path and bytes, in path order. */
  private static String digest(Path root) throws Exception {
    java.security.MessageDigest d = java.security.MessageDigest.getInstance("SHA-256");
    for (Path f : files(root)) {
      d.update(root.relativize(f).toString().replace('\\', '/').getBytes(StandardCharsets.UTF_8));
      d.update((byte) 0);
      d.update(Files.readAllBytes(f));
    }
    return java.util.HexFormat.of().formatHex(d.digest());
  }

  /** Large articles (--size large): 50-150 KB, JATS of the same shape, more references, figures and tables, the same for the same seed. */
  @Test
  void largeArticlesAreFiftyToOneHundredFiftyKilobytesOfTheSameJats() throws Exception {
    Path large = tmp.resolve("large");
    Generator.generate(large, ARTICLES, SEED, true);
    List<Path> articles = files(large).stream().filter(p -> p.getFileName().toString().matches("a\\d+\\.xml")).toList();
    assertThat(articles).hasSize(ARTICLES);
    XPathCompiler x = xpath();
    SAXParserFactory f = SAXParserFactory.newInstance();
    f.setNamespaceAware(true);
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    for (Path p : files(large)) {
      f.newSAXParser().parse(p.toFile(), new DefaultHandler());
    }
    int refs = 0;
    int floats = 0;
    for (Path a : articles) {
      assertThat(Files.size(a)).as("%s", a).isBetween(50L * 1024, 150L * 1000);
      XdmNode doc = parse(a);
      assertThat(x.evaluate("string-join((//xref[not(@rid = //*/@id)]/@rid), ' ')", doc).itemAt(0).getStringValue())
          .as("dangling xref in %s", a).isEmpty();
      for (String[] part : JATS_PARTS) {
        assertThat(x.evaluate(part[1], doc).itemAt(0).getStringValue()).as("%s in %s", part[0], large.relativize(a)).isEqualTo("true");
      }
      for (XdmItem g : x.evaluate("//graphic/@xlink:href", doc)) {
        assertThat(a.resolveSibling(g.getStringValue())).isRegularFile();
      }
      assertThat(Integer.parseInt(eval("count(//ref)", doc))).as("references in %s", a).isGreaterThanOrEqualTo(45);
      assertThat(Integer.parseInt(eval("count(//fig)", doc))).as("figures in %s", a).isGreaterThanOrEqualTo(4);
      assertThat(Integer.parseInt(eval("count(//table-wrap)", doc))).as("tables in %s", a).isGreaterThanOrEqualTo(3);
      refs += Integer.parseInt(eval("count(//ref)", doc));
      floats += Integer.parseInt(eval("count(//fig | //table-wrap)", doc));
    }
    int defaultRefs = 0;
    int defaultFloats = 0;
    for (Path a : articles()) {
      XdmNode doc = parse(a);
      defaultRefs += Integer.parseInt(eval("count(//ref)", doc));
      defaultFloats += Integer.parseInt(eval("count(//fig | //table-wrap)", doc));
    }
    assertThat(refs).isGreaterThan(2 * defaultRefs);
    assertThat(floats).isGreaterThan(2 * defaultFloats);
    // the same pages as the default articles (the same paths), and the same bytes for the same seed
    assertThat(articles.stream().map(large::relativize).map(Path::toString))
        .containsExactlyElementsOf(articles().stream().map(content::relativize).map(Path::toString).toList());
    Path again = tmp.resolve("large-again");
    Generator.generate(again, ARTICLES, SEED, true);
    assertThat(digest(again)).isEqualTo(digest(large));
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
    int total = 0;
    for (String j : List.of("ja", "jb")) {
      Path journal = content.resolve("journals/" + j);
      List<Path> volumes = numbered(journal, "v");
      assertThat(volumes).as(j).hasSizeGreaterThanOrEqualTo(2);
      for (int v = 1; v <= volumes.size(); v++) {
        assertThat(volumes.get(v - 1).getFileName()).hasToString("v" + v + ".atom");
        assertThat(eval("string(/atom:entry/prism:volume)", parse(volumes.get(v - 1)))).isEqualTo(Integer.toString(v));
        Path volumeDir = journal.resolve("v" + v);
        List<Path> issues = numbered(volumeDir, "i");
        assertThat(issues).isNotEmpty();
        for (Path issue : issues) {
          List<Path> entries = numbered(volumeDir.resolve(issue.getFileName().toString().replace(".atom", "")), "a");
          assertThat(entries).isNotEmpty();
          assertThat(eval("string(/atom:entry/atom:summary)", parse(issue)))
              .isEqualTo(entries.size() + (entries.size() == 1 ? " article" : " articles"));
          total += entries.size();
          // pages run on without gaps or overlaps inside an issue
          for (int k = 1; k < entries.size(); k++) {
            assertThat(Integer.parseInt(eval("string(/atom:entry/prism:startingPage)", parse(entries.get(k)))))
                .as("%s", entries.get(k))
                .isEqualTo(Integer.parseInt(eval("string(/atom:entry/prism:endingPage)", parse(entries.get(k - 1)))) + 1);
          }
        }
      }
    }
    assertThat(total).isEqualTo(ARTICLES);
    assertThat(articles()).filteredOn(p -> p.toString().contains("/ja/")).hasSize((ARTICLES + 1) / 2);
  }

  /**
   * The store's layout: every entry says its kind (by depth: journals, journal, volume, issue,
   * article, then figure or table), links to itself and to its parent by store path, and every
   * variant it names sits beside it as P.EXT with the role the introspection gives that kind.
   */
  @Test
  void entriesFollowTheStoreLayout() throws Exception {
    String[] kinds = {"journals", "journal", "volume", "issue", "article"};
    List<Path> entries = files(".atom");
    assertThat(entries).hasSizeGreaterThan(ARTICLES * 3);
    for (Path e : entries) {
      String path = "/" + content.relativize(e).toString().replace('\\', '/').replaceAll("\\.atom$", "");
      assertThat(path).matches("(/[A-Za-z0-9][A-Za-z0-9_-]{0,99})+");
      int depth = path.split("/").length - 1;
      XdmNode entry = parse(e);
      String kind = eval("string(/atom:entry/atom:category[@scheme = 'urn:arno:kind']/@term)", entry);
      String name = path.substring(path.lastIndexOf('/') + 1);
      assertThat(kind).as(path).isEqualTo(depth <= 5 ? kinds[depth - 1] : name.startsWith("f") ? "figure" : "table");
      assertThat(eval("string(/atom:entry/atom:link[@rel = 'self']/@href)", entry)).isEqualTo(path + ".atom");
      assertThat(eval("string(/atom:entry/atom:link[@rel = 'up']/@href)", entry))
          .isEqualTo(depth == 1 ? "" : path.substring(0, path.lastIndexOf('/')) + ".atom");
      assertThat(eval("exists(/atom:entry/atom:title[normalize-space()]) and exists(/atom:entry/atom:updated)", entry))
          .isEqualTo("true");
      String variants = switch (kind) {
        case "article" -> "jats application/xml xml";
        case "figure" -> "image image/svg+xml svg";
        case "table" -> "table application/xml xml";
        default -> "";
      };
      assertThat(eval("string-join(/atom:entry/atom:link[@rel = 'alternate'] ! (@arno:role, @type, substring-after(@href, '"
          + path + ".')), ' ')", entry)).as(path).isEqualTo(variants);
    }
  }

  /**
   * An article's typed links name each of its figures (role figure) and tables (role table) once,
   * in order; a figure's image is the SVG its JATS graphic shows; a table's variant is the
   * table-wrap of the article, node for node.
   */
  @Test
  void articlesLinkTheirFiguresAndTables() throws Exception {
    for (Path e : articleEntries()) {
      XdmNode entry = parse(e);
      Path jats = e.resolveSibling(e.getFileName().toString().replace(".atom", ".xml"));
      XdmNode article = parse(jats);
      String path = "/" + content.relativize(e).toString().replace('\\', '/').replace(".atom", "");
      assertThat(xpath().evaluate("/atom:entry/atom:link[@arno:role = 'figure']/@href/string()", entry).stream()
          .map(XdmItem::getStringValue).toList())
          .containsExactlyElementsOf(xpath().evaluate("//fig/@id/string()", article).stream()
              .map(i -> path + "/" + i.getStringValue() + ".atom").toList());
      assertThat(xpath().evaluate("/atom:entry/atom:link[@arno:role = 'table']/@href/string()", entry).stream()
          .map(XdmItem::getStringValue).toList())
          .containsExactlyElementsOf(xpath().evaluate("//table-wrap/@id/string()", article).stream()
              .map(i -> path + "/" + i.getStringValue() + ".atom").toList());
      for (XdmItem g : xpath().evaluate("//fig/graphic/@xlink:href", article)) {
        String id = g.getStringValue().replaceAll(".*/|\\.svg$", "");
        XdmNode figure = parse(stored(path + "/" + id + ".atom"));
        assertThat(stored(eval("string(/atom:entry/atom:link[@arno:role = 'image']/@href)", figure)))
            .isEqualTo(jats.resolveSibling(g.getStringValue()));
      }
      var compare = xpath();
      compare.declareVariable(new net.sf.saxon.s9api.QName("article"));
      for (XdmItem t : xpath().evaluate("//table-wrap/@id/string()", article)) {
        XdmNode table = parse(stored(path + "/" + t.getStringValue() + ".xml"));
        var deep = compare.compile("deep-equal(/table-wrap, $article//table-wrap[@id = '" + t.getStringValue() + "'])").load();
        deep.setContextItem(table);
        deep.setVariable(new net.sf.saxon.s9api.QName("article"), article);
        assertThat(deep.effectiveBooleanValue()).as("%s %s", path, t.getStringValue()).isTrue();
      }
    }
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
    for (Path a : articles()) {
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
    for (Path e : articleEntries()) {
      XdmNode entry = parse(e);
      XdmNode article = parse(e.resolveSibling(e.getFileName().toString().replace(".atom", ".xml")));
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
    assertThat(cli(2, "generate", "--articles", "5", "--out", "x", "--size", "huge")).contains("--size is default or large, not 'huge'");
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
    assertThat(journals).containsExactlyInAnyOrder("ja", "ja.atom", "jb", "jb.atom");
    assertThat(dir.resolve("journals.atom")).isRegularFile();
    // a second run into the same folder is refused in one line and changes nothing
    assertThat(cli(1, "generate", "--articles", "3", "--out", dir.toString())).contains("already holds demo content");
    // --size large reaches the generator through the plugin
    Path large = tmp.resolve("cli-large");
    assertThat(arno.server.Main.run(new String[] {"generate", "--articles", "1", "--size", "large", "--out", large.toString()},
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))).isZero();
    assertThat(Files.size(large.resolve("journals/ja/v1/i1/a0001.xml"))).isGreaterThan(50L * 1024);
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
