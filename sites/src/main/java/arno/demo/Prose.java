package arno.demo;

/**
 * Realistic-looking scholarly text from seeded word lists: a tiny phrase grammar (noun phrases
 * built from a journal's objects, qualities and processes; clauses from academic verbs and
 * connectives) so that pages have the word lengths, punctuation and rhythm of real articles,
 * which matters for page weight and layout, not for meaning.
 */
final class Prose {
  private final Journal j;

  Prose(Journal journal) {
    this.j = journal;
  }

  private static final String[] ADJECTIVES = {
    "significant", "seasonal", "long-term", "spatial", "nonlinear", "robust", "regional",
    "persistent", "marked", "moderate", "systematic", "transient", "comparable", "consistent",
    "pronounced", "local", "coupled", "observed", "predicted", "underlying"
  };
  private static final String[] VERBS_3S = {
    "controls", "modulates", "reduces", "enhances", "explains", "constrains", "governs",
    "reflects", "dominates", "limits", "amplifies", "shapes"
  };
  private static final String[] VERBS_PAST = {
    "increased", "decreased", "varied", "remained stable", "declined", "peaked", "converged",
    "diverged", "fluctuated", "doubled"
  };
  private static final String[] WE_VERBS = {
    "quantify", "characterise", "examine", "assess", "compare", "model", "estimate",
    "investigate", "evaluate", "map", "reconstruct", "test"
  };
  private static final String[] OPENERS = {
    "However", "In contrast", "Moreover", "Consequently", "Notably", "In addition",
    "Taken together", "As expected", "Surprisingly", "By comparison", "Overall", "Nevertheless"
  };
  private static final String[] HEDGES = {
    "suggests that", "indicates that", "is consistent with the view that",
    "supports the hypothesis that", "implies that", "confirms that"
  };
  private static final String[] RESULTS_NOUNS = {
    "This pattern", "The correlation", "The difference", "This result", "The trend",
    "The agreement", "The discrepancy", "This sensitivity"
  };
  private static final String[] SCOPES = {
    "across all sites", "during the study period", "at the seasonal scale", "in most cases",
    "under controlled conditions", "for the reference scenario", "over the full range tested",
    "in the validation set", "relative to the baseline", "within measurement uncertainty"
  };

  static final String[] SURNAMES = {
    "Okafor", "Lindqvist", "Moreau", "Tanaka", "García", "Kowalski", "Nguyễn", "Müller",
    "Haddad", "Sørensen", "O'Brien", "Petrov", "Chen", "Ferreira", "Novak", "Ishikawa",
    "Abebe", "Rossi", "Kaur", "Dubois", "Johansson", "Mensah", "Vandenberg", "Silva",
    "Kim", "Nowak", "Hughes", "Alvarez", "Yilmaz", "Papadopoulos", "Bianchi", "Ivanova",
    "Schmidt", "Park", "Andersen", "Costa", "Walsh", "Zhang", "Fischer", "Rahman"
  };
  static final String[] GIVEN_NAMES = {
    "Amara", "Lars", "Camille", "Hiroshi", "Lucía", "Łukasz", "Thị Lan", "Jonas", "Rania",
    "Mette", "Siobhán", "Dmitri", "Wei", "João", "Petra", "Yuki", "Kebede", "Giulia", "Harpreet",
    "Élodie", "Sven", "Kwame", "Anouk", "Rafael", "Min-jun", "Agnieszka", "Owen", "Marisol",
    "Emre", "Eleni", "Marco", "Olga", "Katrin", "Ji-woo", "Freja", "Beatriz", "Declan", "Lin",
    "Tobias", "Nusrat"
  };
  static final String[][] INSTITUTIONS = {
    {"Department of Earth Sciences, University of Utrecht", "Utrecht", "Netherlands"},
    {"School of Engineering, University of Queensland", "Brisbane", "Australia"},
    {"Institute of Marine Research", "Bergen", "Norway"},
    {"Department of Civil Engineering, Texas A&M University", "College Station", "USA"},
    {"Graduate School of Science, Tohoku University", "Sendai", "Japan"},
    {"Centre for Water Resources, Anna University", "Chennai", "India"},
    {"Laboratoire de Physique des Matériaux, Université Grenoble Alpes", "Grenoble", "France"},
    {"Department of Materials, ETH Zürich", "Zürich", "Switzerland"},
    {"Instituto de Ciencias del Mar, CSIC", "Barcelona", "Spain"},
    {"Faculty of Science, Universidade de São Paulo", "São Paulo", "Brazil"},
    {"Department of Geography, University of Ghana", "Accra", "Ghana"},
    {"Max Planck Institute for Sustainable Materials", "Düsseldorf", "Germany"},
    {"School of Materials Science, Tsinghua University", "Beijing", "China"},
    {"Department of Physics, Seoul National University", "Seoul", "Republic of Korea"},
    {"Deltares", "Delft", "Netherlands"},
    {"Scripps Institution of Oceanography, UC San Diego", "La Jolla", "USA"},
    {"Department of Chemistry, University of Cape Town", "Cape Town", "South Africa"},
    {"Faculty of Engineering, Middle East Technical University", "Ankara", "Türkiye"}
  };
  static final String[] SOURCES_SHARED = {
    "Nature Communications", "Scientific Reports", "Proceedings of the National Academy of Sciences",
    "PLOS ONE", "Science Advances"
  };
  static final String[] SOURCES_A = {
    "Water Resources Research", "Journal of Hydrology", "Estuarine, Coastal and Shelf Science",
    "Hydrological Processes", "Limnology and Oceanography", "Continental Shelf Research"
  };
  static final String[] SOURCES_B = {
    "Acta Materialia", "npj Computational Materials", "Physical Review Materials",
    "Chemistry of Materials", "Journal of Materials Science", "Advanced Functional Materials"
  };

  String[] sources() {
    return j.id().equals("ja") ? SOURCES_A : SOURCES_B;
  }

  String nounPhrase(Rnd r) {
    return switch (r.below(6)) {
      case 0 -> "the " + r.pick(j.qualities()) + " of the " + r.pick(j.objects());
      case 1 -> r.pick(ADJECTIVES) + " " + r.pick(j.processes());
      case 2 -> "the " + r.pick(ADJECTIVES) + " " + r.pick(j.qualities());
      case 3 -> r.pick(j.processes()) + " in the " + r.pick(j.objects());
      case 4 -> "the " + r.pick(j.objects());
      default -> r.pick(j.qualities());
    };
  }

  private String measurement(Rnd r) {
    int whole = r.between(1, 950);
    int frac = r.below(100);
    return whole + "." + (frac < 10 ? "0" : "") + frac + " " + r.pick(j.measures());
  }

  /** One sentence without its final full stop, so that a caller may append a citation. */
  String clause(Rnd r) {
    return switch (r.below(9)) {
      case 0 -> "We " + r.pick(WE_VERBS) + " " + nounPhrase(r) + " using " + r.pick(j.methods());
      case 1 -> cap(nounPhrase(r)) + " " + r.pick(VERBS_3S) + " " + nounPhrase(r) + " " + r.pick(SCOPES);
      case 2 -> r.pick(OPENERS) + ", " + nounPhrase(r) + " " + r.pick(VERBS_PAST) + " " + r.pick(SCOPES);
      case 3 -> r.pick(RESULTS_NOUNS) + " " + r.pick(HEDGES) + " " + nounPhrase(r) + " "
          + r.pick(VERBS_3S) + " " + nounPhrase(r);
      case 4 -> "Mean " + r.pick(j.qualities()) + " reached " + measurement(r) + " (n = "
          + r.between(12, 480) + "; p < 0.0" + r.between(1, 5) + ")";
      case 5 -> "Data from " + r.pick(j.places()) + " were used to " + r.pick(WE_VERBS) + " "
          + nounPhrase(r);
      case 6 -> cap(r.pick(j.processes())) + " " + r.pick(VERBS_PAST) + " by "
          + r.between(3, 78) + "% " + r.pick(SCOPES) + ", whereas " + nounPhrase(r) + " "
          + r.pick(VERBS_PAST);
      case 7 -> "Previous studies have linked " + nounPhrase(r) + " to " + nounPhrase(r);
      default -> cap(nounPhrase(r)) + " was estimated with " + r.pick(j.methods()) + " "
          + r.pick(SCOPES);
    };
  }

  String sentence(Rnd r) {
    return clause(r) + ".";
  }

  String title(Rnd r) {
    return switch (r.below(5)) {
      case 0 -> cap(r.pick(j.processes())) + " and " + r.pick(j.qualities()) + " in "
          + r.pick(j.places()) + ": evidence from " + r.pick(j.methods());
      case 1 -> "Quantifying " + nounPhrase(r) + " with " + r.pick(j.methods());
      case 2 -> cap(r.pick(ADJECTIVES)) + " controls on " + r.pick(j.qualities()) + " in "
          + (r.chance(0.5) ? r.pick(j.places()) : "the " + r.pick(j.objects()));
      case 3 -> "How does " + r.pick(j.processes()) + " affect the " + r.pick(j.qualities())
          + " of the " + r.pick(j.objects()) + "?";
      default -> cap(r.pick(j.methods())) + " reveals " + r.pick(ADJECTIVES) + " "
          + r.pick(j.processes());
    };
  }

  String sectionTitle(Rnd r) {
    return switch (r.below(4)) {
      case 0 -> cap(r.pick(j.processes()));
      case 1 -> cap(r.pick(j.qualities())) + " of the " + r.pick(j.objects());
      case 2 -> cap(r.pick(ADJECTIVES)) + " " + r.pick(j.qualities());
      default -> "Comparison with " + r.pick(j.methods());
    };
  }

  String figureTitle(Rnd r) {
    return switch (r.below(5)) {
      case 0 -> "Spatial distribution of " + r.pick(j.qualities()) + " in the " + r.pick(j.objects());
      case 1 -> "Time series of " + r.pick(j.qualities()) + " in " + r.pick(j.places());
      case 2 -> "Relationship between " + r.pick(j.qualities()) + " and " + r.pick(j.qualities());
      case 3 -> "Sensitivity of " + r.pick(j.qualities()) + " to " + r.pick(j.processes());
      default -> "Overview of the workflow based on " + r.pick(j.methods());
    };
  }

  String keyword(Rnd r) {
    return switch (r.below(3)) {
      case 0 -> r.pick(j.processes());
      case 1 -> r.pick(j.qualities());
      default -> r.pick(j.methods());
    };
  }

  String species(Rnd r) {
    return j.species().length == 0 ? null : r.pick(j.species());
  }

  static String cap(String s) {
    return Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }
}
