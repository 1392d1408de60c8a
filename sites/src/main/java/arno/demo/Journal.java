package arno.demo;

/**
 * One demo journal: its identity, its publishing rhythm and the vocabulary of its field. The two
 * journals differ in subject so that their pages look different beyond the branding.
 */
record Journal(
    String id,
    String title,
    String abbreviation,
    String issn,
    String publisher,
    int firstYear,
    int issuesPerVolume,
    String[] objects,
    String[] qualities,
    String[] processes,
    String[] methods,
    String[] places,
    String[] measures,
    String[] species) {

  static final Journal A = new Journal(
      "ja", "Journal of Coastal Hydrology", "J. Coast. Hydrol.", "2049-1732",
      "Arno Academic Press", 2012, 4,
      new String[] {
        "estuary", "aquifer", "tidal inlet", "salt marsh", "groundwater table", "river plume",
        "catchment", "lagoon", "barrier island", "floodplain", "mangrove stand", "dune system",
        "sediment budget", "drainage network", "freshwater lens", "wetland", "tidal flat",
        "storm surge", "coastal aquifer", "delta front"},
      new String[] {
        "salinity", "residence time", "hydraulic conductivity", "nitrate load", "turbidity",
        "recharge rate", "discharge", "water quality", "tidal range", "dissolved oxygen",
        "sediment flux", "flood frequency", "porosity", "stratification", "runoff coefficient"},
      new String[] {
        "saltwater intrusion", "sediment transport", "evapotranspiration", "tidal mixing",
        "groundwater discharge", "nutrient retention", "bank erosion", "rainfall-runoff response",
        "flushing", "denitrification", "subsidence", "overwash", "infiltration"},
      new String[] {
        "electrical resistivity tomography", "a coupled hydrodynamic model", "stable isotope tracers",
        "radon-222 mass balance", "acoustic Doppler profiling", "piezometer transects",
        "a Bayesian hierarchical model", "LiDAR-derived elevation models", "Sentinel-2 imagery",
        "a finite-element groundwater model", "high-frequency sensor networks",
        "principal component analysis"},
      new String[] {
        "the Wadden Sea", "Chesapeake Bay", "the Mekong Delta", "Moreton Bay", "the Ebro Delta",
        "Port Phillip Bay", "the Camargue", "San Francisco Bay", "the Sundarbans",
        "the Venice Lagoon", "the Gulf of Carpentaria", "Tampa Bay"},
      new String[] {"m³ s⁻¹", "mg L⁻¹", "PSU", "mm d⁻¹", "m d⁻¹", "%", "km²", "cm yr⁻¹"},
      new String[] {
        "Rhizophora mangle", "Spartina alterniflora", "Zostera marina", "Avicennia marina",
        "Phragmites australis", "Crassostrea virginica"});

  static final Journal B = new Journal(
      "jb", "Materials Informatics Review", "Mater. Inform. Rev.", "2196-4415",
      "Arno Academic Press", 2016, 3,
      new String[] {
        "high-entropy alloy", "perovskite film", "grain boundary", "oxide interface",
        "polymer electrolyte", "thin-film transistor", "solid solution", "precipitate",
        "metal-organic framework", "amorphous phase", "dislocation network", "cathode material",
        "ceramic coating", "superlattice", "nanowire array", "lattice defect"},
      new String[] {
        "tensile strength", "band gap", "ionic conductivity", "fracture toughness",
        "lattice parameter", "thermal stability", "formation energy", "hardness",
        "carrier mobility", "diffusion coefficient", "elastic modulus", "phase stability",
        "yield stress", "dielectric constant"},
      new String[] {
        "phase separation", "grain growth", "crack propagation", "dopant segregation",
        "ion migration", "recrystallization", "oxidation", "creep", "twinning",
        "charge transfer", "spinodal decomposition", "sintering"},
      new String[] {
        "density functional theory", "a graph neural network", "high-throughput screening",
        "X-ray diffraction", "transmission electron microscopy", "molecular dynamics",
        "Gaussian process regression", "active learning", "atom probe tomography",
        "a random forest surrogate", "nanoindentation", "impedance spectroscopy"},
      new String[] {
        "the Materials Project database", "the OQMD dataset", "a combinatorial library",
        "an in-house benchmark", "the AFLOW repository", "a curated literature corpus",
        "a round-robin study", "the NOMAD archive"},
      new String[] {"GPa", "eV", "S cm⁻¹", "MPa m½", "Å", "K", "cm² V⁻¹ s⁻¹", "HV"},
      new String[] {});
}
