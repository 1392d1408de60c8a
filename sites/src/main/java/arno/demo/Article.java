package arno.demo;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * The metadata of one article: everything that the Atom feeds repeat, drawn from the article's
 * own random stream before its body is written, so that feeds and article agree by construction.
 */
record Article(
    Journal journal,
    int volume,
    int issue,
    int number,
    String type,
    String title,
    List<Author> authors,
    List<String[]> affiliations,
    List<String> abstractSentences,
    List<String> keywords,
    List<String> figureTitles,
    int tables,
    LocalDate received,
    LocalDate accepted,
    LocalDate published,
    int fpage,
    int lpage,
    long bodySeed) {

  record Author(String given, String surname, int affiliation, boolean corresponding) {
    String email() {
      String local = (given.charAt(0) + "." + surname).toLowerCase()
          .replaceAll("[^a-z.]", "");
      return local + "@example.org";
    }
  }

  static final String[][] TYPES = {
    {"research-article", "Research Article"},
    {"review-article", "Review"},
    {"brief-report", "Brief Report"},
    {"editorial", "Editorial"}
  };

  /** "a0042": the article's folder name and publisher id. */
  String id() {
    return String.format("a%04d", number);
  }

  String doi() {
    return String.format("10.5555/%s.%d.%04d", journal.id(), published.getYear(), number);
  }

  String typeLabel() {
    for (String[] t : TYPES) {
      if (t[0].equals(type)) {
        return t[1];
      }
    }
    throw new IllegalStateException(type);
  }

  String abstractText() {
    return String.join(" ", abstractSentences);
  }

  /**
   * Draws an article's metadata; pages run on from {@code fpage}. A {@code large} article has more
   * figures and tables, drawn after everything else, so that the default articles stay as they were.
   */
  static Article draw(Journal j, Prose prose, long seed, int volume, int issue, int number,
      LocalDate issueDate, int fpage, boolean large) {
    Rnd r = Rnd.of(seed, j.id().hashCode(), number);
    int t = r.below(100);
    String type = t < 70 ? "research-article" : t < 82 ? "review-article" : t < 94 ? "brief-report" : "editorial";
    String title = prose.title(r);

    int affCount = r.between(1, 4);
    List<String[]> affs = new ArrayList<>();
    while (affs.size() < affCount) {
      String[] a = r.pick(Prose.INSTITUTIONS);
      if (!affs.contains(a)) {
        affs.add(a);
      }
    }
    int authorCount = type.equals("editorial") ? r.between(1, 2) : r.between(2, 8);
    List<Author> authors = new ArrayList<>();
    int corresponding = r.below(authorCount);
    while (authors.size() < authorCount) {
      String given = r.pick(Prose.GIVEN_NAMES);
      String surname = r.pick(Prose.SURNAMES);
      boolean duplicate = authors.stream().anyMatch(a -> a.surname().equals(surname) && a.given().equals(given));
      if (!duplicate) {
        int aff = authors.size() < affCount ? authors.size() + 1 : r.between(1, affCount);
        authors.add(new Author(given, surname, aff, authors.size() == corresponding));
      }
    }

    List<String> sentences = new ArrayList<>();
    for (int i = r.between(5, 8); i > 0; i--) {
      sentences.add(prose.sentence(r));
    }
    List<String> keywords = new ArrayList<>();
    for (int want = r.between(4, 7), guard = 0; keywords.size() < want && guard < 50; guard++) {
      String k = prose.keyword(r);
      if (!keywords.contains(k)) {
        keywords.add(k);
      }
    }
    List<String> figures = new ArrayList<>();
    for (int i = r.between(1, 4); i > 0; i--) {
      figures.add(prose.figureTitle(r));
    }
    int tables = r.between(1, 3);
    LocalDate published = issueDate.plusDays(r.between(0, 27));
    LocalDate accepted = published.minusDays(r.between(10, 60));
    LocalDate received = accepted.minusDays(r.between(60, 200));
    int pages = type.equals("editorial") ? r.between(2, 4) : r.between(8, 24);
    long bodySeed = r.nextLong();
    if (large) {
      for (int i = r.between(3, 7); i > 0; i--) {
        figures.add(prose.figureTitle(r));
      }
      tables += r.between(2, 4);
      pages += r.between(6, 12);
    }
    return new Article(j, volume, issue, number, type, title, List.copyOf(authors), List.copyOf(affs),
        List.copyOf(sentences), List.copyOf(keywords), List.copyOf(figures), tables,
        received, accepted, published, fpage, fpage + pages - 1, bodySeed);
  }
}
