package arno.testkit;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * A query workload in the manner of XMark (Schmidt et al., "XMark: a benchmark for XML data
 * management", VLDB 2002), the one copy: an auction site document ({@code site/regions/*}{@code
 * /item}, {@code people/person}, {@code open_auctions}, {@code closed_auctions}, {@code
 * categories}) generated deterministically at any size, and twenty queries after XMark's Q1–Q20:
 * lookups by id, ordered access, value comparisons, descendant counts by name, nested-loop joins
 * on attribute equality (people × closed auctions by buyer, a three-way join with items),
 * grouping, a text search, missing elements, ordered output, {@code //x[@y = 'z']} scans, and one
 * XSLT join through {@code xsl:key}.
 *
 * <p>perf's {@code XMarkBench} times the queries on the stored tree against TinyTree; the store's
 * {@code XMarkWorkloadTest} checks at a small size that both trees give the same results.
 */
public final class XMark {

    private XMark() {
    }

    /** The queries, by name; {@code key-join} is the XSLT one ({@link #KEY_JOIN}). */
    public static final Map<String, String> QUERIES = queries();

    /** XMark Q8 written with xsl:key: Saxon builds the key index by scanning the document. */
    public static final String KEY_JOIN = """
            <xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
              <xsl:key name="buyer" match="closed_auction" use="buyer/@person"/>
              <xsl:key name="item" match="item" use="@id"/>
              <xsl:template match="/">
                <r>
                  <xsl:for-each select="site/people/person">
                    <p name="{name}" bought="{count(key('buyer', @id))}"
                       items="{key('buyer', @id)/itemref/key('item', @item)/name}"/>
                  </xsl:for-each>
                </r>
              </xsl:template>
            </xsl:stylesheet>""";

    private static Map<String, String> queries() {
        Map<String, String> q = new LinkedHashMap<>();
        q.put("Q1 id lookup", "for $b in /site/people/person[@id = 'person0'] return $b/name/text()");
        q.put("Q2 ordered access", "for $b in /site/open_auctions/open_auction "
                + "return <increase>{$b/bidder[1]/increase/text()}</increase>");
        q.put("Q3 first/last bid", "for $b in /site/open_auctions/open_auction "
                + "where zero-or-one($b/bidder[1]/increase/text()) * 2 <= $b/bidder[last()]/increase/text() "
                + "return <increase first='{$b/bidder[1]/increase/text()}' last='{$b/bidder[last()]/increase/text()}'/>");
        q.put("Q4 document order", "for $b in /site/open_auctions/open_auction "
                + "where some $pr1 in $b/bidder/personref[@person = 'person20'], "
                + "$pr2 in $b/bidder/personref[@person = 'person51'] satisfies $pr1 << $pr2 "
                + "return <history>{$b/reserve/text()}</history>");
        q.put("Q5 value comparison", "count(for $i in /site/closed_auctions/closed_auction "
                + "where $i/price/text() >= 40 return $i/price)");
        q.put("Q6 descendant count", "for $b in /site/regions return count($b//item)");
        q.put("Q7 descendant counts", "for $p in /site return count($p//description) + count($p//annotation) "
                + "+ count($p//emailaddress)");
        q.put("Q8 join by buyer", "for $p in /site/people/person[position() <= 2000] "
                + "let $a := for $t in /site/closed_auctions/closed_auction where $t/buyer/@person = $p/@id return $t "
                + "return <item person='{$p/name/text()}'>{count($a)}</item>");
        q.put("Q9 three-way join", "let $ca := /site/closed_auctions/closed_auction "
                + "let $ei := /site/regions/europe/item "
                + "for $p in /site/people/person[position() <= 500] "
                + "let $a := for $t in $ca where $p/@id = $t/buyer/@person "
                + "return let $n := for $t2 in $ei where $t/itemref/@item = $t2/@id return $t2 "
                + "return <item>{$n/name/text()}</item> "
                + "return <person name='{$p/name/text()}'>{$a}</person>");
        q.put("Q10 grouping", "for $p in /site/people/person let $c := string($p/address/country) "
                + "group by $c order by $c return <country name='{$c}' people='{count($p)}' "
                + "income='{round(sum($p/profile/@income))}'/>");
        q.put("Q11 value join", "for $p in /site/people/person[position() <= 300] "
                + "let $l := for $i in /site/open_auctions/open_auction/initial "
                + "where $p/profile/@income > 5000 * exactly-one($i/text()) return $i "
                + "return <items name='{$p/name/text()}'>{count($l)}</items>");
        q.put("Q13 reconstruction", "for $i in /site/regions/australia/item "
                + "return <item name='{$i/name/text()}'>{$i/description}</item>");
        q.put("Q14 text search", "for $i in /site//item where contains(string(exactly-one($i/description)), 'gold') "
                + "return $i/name/text()");
        q.put("Q15 long path", "for $a in /site/closed_auctions/closed_auction/annotation/description/parlist/"
                + "listitem/parlist/listitem/text/emph/keyword/text() return <text>{$a}</text>");
        q.put("Q17 missing element", "for $p in /site/people/person where empty($p/homepage/text()) "
                + "return <person name='{$p/name/text()}'/>");
        q.put("Q18 function", "declare function local:convert($v as xs:decimal?) as xs:decimal? "
                + "{ 2.20371 * $v }; for $i in /site/open_auctions/open_auction "
                + "return local:convert(zero-or-one($i/reserve))");
        q.put("Q19 order by", "for $b in /site/regions//item let $k := $b/name/text() "
                + "order by zero-or-one($b/location) ascending empty greatest, $k "
                + "return <item name='{$k}'>{$b/location/text()}</item>");
        q.put("Q20 aggregation", "<result><preferred>{count(/site/people/person/profile[@income >= 100000])}"
                + "</preferred><standard>{count(/site/people/person/profile[@income < 100000 and @income >= 30000])}"
                + "</standard><challenge>{count(/site/people/person/profile[@income < 30000])}</challenge>"
                + "<na>{count(for $p in /site/people/person where empty($p/profile/@income) return $p)}</na></result>");
        q.put("S1 attribute scan", "count(/site//incategory[@category = 'category7'])");
        q.put("S2 distinct values", "count(distinct-values(/site//personref/@person))");
        q.put("key-join", KEY_JOIN);
        return Collections.unmodifiableMap(q);
    }

    // ---------------------------------------------------------------------------------------------
    // The document

    private static final String[] REGIONS = {"africa", "asia", "australia", "europe", "namerica", "samerica"};
    private static final double[] REGION_SHARE = {0.025, 0.09, 0.1, 0.28, 0.46, 0.045};
    private static final String[] COUNTRIES = {"United States", "Germany", "France", "Japan", "Brazil", "Kenya",
        "Australia", "Canada", "India", "Italy"};
    private static final String[] WORDS = {"gold", "silver", "auction", "vintage", "rare", "mint", "condition",
        "shipping", "payment", "collector", "original", "antique", "lot", "bid", "seller", "buyer", "item", "box",
        "paper", "wood", "glass", "the", "of", "and", "with", "for", "from", "a", "new", "old", "great", "small"};

    /**
     * An XMark-shaped auction document of about {@code mb} megabytes, the same for the same seed.
     * Counts scale as in XMark's generator (scale 1 ≈ 100 MB: 21,750 items, 25,500 people, 12,000
     * open and 9,750 closed auctions, 1,000 categories).
     */
    public static String auctions(double mb, long seed) {
        double f = mb / 100.0 * 2.33;
        int items = Math.max(12, (int) (21750 * f));
        int people = Math.max(10, (int) (25500 * f));
        int open = Math.max(6, (int) (12000 * f));
        int closed = Math.max(5, (int) (9750 * f));
        int categories = Math.max(8, (int) (1000 * f));
        Random r = new Random(seed);
        StringBuilder b = new StringBuilder((int) (mb * 1.1 * (1 << 20)) + 4096);
        b.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<site>\n<regions>\n");
        int item = 0;
        for (int g = 0; g < REGIONS.length; g++) {
            b.append('<').append(REGIONS[g]).append(">\n");
            int n = g == REGIONS.length - 1 ? items - item : (int) Math.round(items * REGION_SHARE[g]);
            for (int i = 0; i < n; i++, item++) {
                item(b, r, item, categories, people);
            }
            b.append("</").append(REGIONS[g]).append(">\n");
        }
        b.append("</regions>\n<categories>\n");
        for (int c = 0; c < categories; c++) {
            b.append("<category id=\"category").append(c).append("\"><name>").append(words(r, 2))
                    .append("</name><description>");
            text(b, r, 10 + r.nextInt(30));
            b.append("</description></category>\n");
        }
        b.append("</categories>\n<catgraph>\n");
        for (int c = 0; c < categories; c++) {
            b.append("<edge from=\"category").append(r.nextInt(categories)).append("\" to=\"category")
                    .append(r.nextInt(categories)).append("\"/>\n");
        }
        b.append("</catgraph>\n<people>\n");
        for (int p = 0; p < people; p++) {
            person(b, r, p, categories, open);
        }
        b.append("</people>\n<open_auctions>\n");
        for (int a = 0; a < open; a++) {
            openAuction(b, r, a, items, people);
        }
        b.append("</open_auctions>\n<closed_auctions>\n");
        for (int a = 0; a < closed; a++) {
            closedAuction(b, r, items, people);
        }
        b.append("</closed_auctions>\n</site>\n");
        return b.toString();
    }

    private static String words(Random r, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                b.append(' ');
            }
            b.append(WORDS[r.nextInt(WORDS.length)]);
        }
        return b.toString();
    }

    /** A text element of mixed content: words with keyword, bold and emph, sometimes a nested parlist. */
    private static void text(StringBuilder b, Random r, int n) {
        if (r.nextInt(4) == 0) {
            b.append("<parlist>");
            for (int i = 0; i < 1 + r.nextInt(3); i++) {
                b.append("<listitem>");
                if (r.nextInt(3) == 0) {
                    b.append("<parlist><listitem><text>").append(words(r, 3)).append(" <emph><keyword>")
                            .append(words(r, 2)).append("</keyword></emph></text></listitem></parlist>");
                } else {
                    b.append("<text>").append(words(r, n / 3 + 1)).append("</text>");
                }
                b.append("</listitem>");
            }
            b.append("</parlist>");
            return;
        }
        b.append("<text>").append(words(r, n / 2));
        switch (r.nextInt(3)) {
            case 0 -> b.append(" <keyword>").append(words(r, 2)).append("</keyword> ");
            case 1 -> b.append(" <bold>").append(words(r, 1)).append("</bold> ");
            default -> b.append(" <emph>").append(words(r, 2)).append("</emph> ");
        }
        b.append(words(r, n / 2)).append("</text>");
    }

    private static String date(Random r) {
        return String.format(Locale.ROOT, "%02d/%02d/%04d", 1 + r.nextInt(12), 1 + r.nextInt(28), 1998 + r.nextInt(4));
    }

    private static void item(StringBuilder b, Random r, int id, int categories, int people) {
        b.append("<item id=\"item").append(id).append('"');
        if (r.nextInt(10) == 0) {
            b.append(" featured=\"yes\"");
        }
        b.append("><location>").append(COUNTRIES[r.nextInt(COUNTRIES.length)]).append("</location><quantity>")
                .append(1 + r.nextInt(2)).append("</quantity><name>").append(words(r, 2 + r.nextInt(3)))
                .append("</name><payment>").append(r.nextBoolean() ? "Creditcard" : "Money order, Cash")
                .append("</payment><description>");
        text(b, r, 20 + r.nextInt(80));
        b.append("</description><shipping>").append(words(r, 4)).append("</shipping>");
        for (int c = 0; c < 1 + r.nextInt(4); c++) {
            b.append("<incategory category=\"category").append(r.nextInt(categories)).append("\"/>");
        }
        b.append("<mailbox>");
        for (int m = 0; m < r.nextInt(3); m++) {
            b.append("<mail><from>").append(words(r, 2)).append("</from><to>").append(words(r, 2))
                    .append("</to><date>").append(date(r)).append("</date>");
            text(b, r, 10 + r.nextInt(30));
            b.append("</mail>");
        }
        b.append("</mailbox></item>\n");
    }

    private static void person(StringBuilder b, Random r, int id, int categories, int open) {
        b.append("<person id=\"person").append(id).append("\"><name>").append(words(r, 2))
                .append("</name><emailaddress>mailto:p").append(id).append("@example.com</emailaddress>");
        if (r.nextBoolean()) {
            b.append("<phone>+").append(r.nextInt(100)).append(" (").append(r.nextInt(1000)).append(") ")
                    .append(r.nextInt(10_000_000)).append("</phone>");
        }
        if (r.nextInt(3) > 0) {
            b.append("<address><street>").append(r.nextInt(100)).append(' ').append(words(r, 1))
                    .append(" St</street><city>").append(words(r, 1)).append("</city><country>")
                    .append(COUNTRIES[r.nextInt(COUNTRIES.length)]).append("</country><zipcode>")
                    .append(r.nextInt(100000)).append("</zipcode></address>");
        }
        if (r.nextInt(4) == 0) {
            b.append("<homepage>http://www.example.com/~p").append(id).append("</homepage>");
        }
        if (r.nextInt(3) > 0) {
            b.append("<profile");
            if (r.nextInt(5) > 0) {
                b.append(" income=\"").append(String.format(Locale.ROOT, "%.2f", 9876 + r.nextGaussian() * 30000 + 40000))
                        .append('"');
            }
            b.append('>');
            for (int i = 0; i < r.nextInt(4); i++) {
                b.append("<interest category=\"category").append(r.nextInt(categories)).append("\"/>");
            }
            b.append("<business>").append(r.nextBoolean() ? "Yes" : "No").append("</business>");
            if (r.nextBoolean()) {
                b.append("<age>").append(18 + r.nextInt(50)).append("</age>");
            }
            b.append("</profile>");
        }
        b.append("<watches>");
        for (int w = 0; w < r.nextInt(4); w++) {
            b.append("<watch open_auction=\"open_auction").append(r.nextInt(open)).append("\"/>");
        }
        b.append("</watches></person>\n");
    }

    private static void openAuction(StringBuilder b, Random r, int id, int items, int people) {
        double initial = 1 + r.nextInt(20000) / 100.0;
        b.append("<open_auction id=\"open_auction").append(id).append("\"><initial>")
                .append(String.format(Locale.ROOT, "%.2f", initial)).append("</initial>");
        if (r.nextBoolean()) {
            b.append("<reserve>").append(String.format(Locale.ROOT, "%.2f", initial * (1.2 + r.nextDouble())))
                    .append("</reserve>");
        }
        double current = initial;
        for (int i = 0; i < r.nextInt(8); i++) {
            double inc = 1.5 * (1 + r.nextInt(20));
            current += inc;
            b.append("<bidder><date>").append(date(r)).append("</date><time>").append(r.nextInt(24)).append(':')
                    .append(10 + r.nextInt(50)).append(":00</time><personref person=\"person")
                    .append(r.nextInt(people)).append("\"/><increase>")
                    .append(String.format(Locale.ROOT, "%.2f", inc)).append("</increase></bidder>");
        }
        b.append("<current>").append(String.format(Locale.ROOT, "%.2f", current)).append("</current><itemref item=\"item")
                .append(r.nextInt(items)).append("\"/><seller person=\"person").append(r.nextInt(people))
                .append("\"/>");
        annotation(b, r, people);
        b.append("<quantity>1</quantity><type>").append(r.nextBoolean() ? "Regular" : "Featured")
                .append("</type><interval><start>").append(date(r)).append("</start><end>").append(date(r))
                .append("</end></interval></open_auction>\n");
    }

    private static void closedAuction(StringBuilder b, Random r, int items, int people) {
        b.append("<closed_auction><seller person=\"person").append(r.nextInt(people))
                .append("\"/><buyer person=\"person").append(r.nextInt(people)).append("\"/><itemref item=\"item")
                .append(r.nextInt(items)).append("\"/><price>")
                .append(String.format(Locale.ROOT, "%.2f", 5 + r.nextInt(30000) / 100.0)).append("</price><date>")
                .append(date(r)).append("</date><quantity>1</quantity><type>")
                .append(r.nextBoolean() ? "Regular" : "Featured").append("</type>");
        annotation(b, r, people);
        b.append("</closed_auction>\n");
    }

    private static void annotation(StringBuilder b, Random r, int people) {
        b.append("<annotation><author person=\"person").append(r.nextInt(people)).append("\"/><description>");
        text(b, r, 10 + r.nextInt(50));
        b.append("</description><happiness>").append(1 + r.nextInt(10)).append("</happiness></annotation>");
    }
}
