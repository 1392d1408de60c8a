package arno.store.http;

import arno.store.atom.Rfc;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The grammars and rules themselves: they accept what the RFCs allow and refuse what they do not,
 * so a passing validation elsewhere means something. One case is why expansions wrap inlined
 * entries in {@code arno:inline}: an atom:entry straight inside atom:link is not RFC 4287.
 */
class RfcTest {
    static final String ENTRY = "<entry xmlns='http://www.w3.org/2005/Atom'><id>urn:x</id><title>t</title>"
            + "<updated>2026-11-24T10:00:00Z</updated><author><name>a</name></author><content>c</content>%s</entry>";
    /** An entry with neither content nor alternate link, and no author. */
    static final String BARE = "<entry xmlns='http://www.w3.org/2005/Atom' xmlns:app='http://www.w3.org/2007/app'>"
            + "<id>urn:x</id><title>t</title><updated>2026-11-24T10:00:00Z</updated>%s</entry>";

    @Test void aMinimalEntryAndFeedAreValid() {
        Rfc.assertAtom(String.format(ENTRY, "<link rel='self' href='/a.atom'/><foo xmlns='urn:ext'>x</foo>"));
        Rfc.assertAtom(String.format(BARE, "<author><name>a</name></author><link href='http://example.org/a'/>"));
        Rfc.assertAtom("<feed xmlns='http://www.w3.org/2005/Atom'><id>urn:f</id><title>f</title>"
                + "<updated>2026-11-24T10:00:00Z</updated>" + String.format(ENTRY, "").replace(" xmlns='http://www.w3.org/2005/Atom'", "")
                + "</feed>");
    }

    @Test void anEntryWithoutIdOrWithABadDateIsRefused() {
        assertThat(Rfc.problems("atom.rnc", "<entry xmlns='http://www.w3.org/2005/Atom'><title>t</title>"
                + "<updated>2026-11-24T10:00:00Z</updated></entry>")).isNotEmpty();
        assertThat(Rfc.problems("atom.rnc", String.format(ENTRY, "").replace("2026-11-24T10:00:00Z", "yesterday"))).isNotEmpty();
        assertThatThrownBy(() -> Rfc.assertAtom("<entry/>")).isInstanceOf(AssertionError.class);
    }

    @Test void anEntryDirectlyInALinkIsRefusedButInAForeignWrapperIsValid() {
        String inner = String.format(ENTRY, "");
        assertThat(Rfc.problems("atom.rnc", String.format(ENTRY, "<link rel='up' href='/p.atom'>" + inner + "</link>")))
                .isNotEmpty();
        Rfc.assertAtom(String.format(ENTRY, "<link rel='up' href='/p.atom'><arno:inline xmlns:arno='urn:arno:atom'>"
                + inner + "</arno:inline></link>"));
    }

    @Test void aServiceDocumentIsValidAndOneWithoutWorkspaceIsNot() {
        Rfc.assertService("<service xmlns='http://www.w3.org/2007/app' xmlns:atom='http://www.w3.org/2005/Atom'>"
                + "<workspace><atom:title>Store</atom:title><collection href='/store/'><atom:title>journals</atom:title>"
                + "<accept>application/atom+xml;type=entry</accept></collection></workspace></service>");
        assertThat(Rfc.problems("app.rnc", "<service xmlns='http://www.w3.org/2007/app'/>")).isNotEmpty();
    }

    @Test void theRulesBeyondTheGrammarAreTheRfcsAndEachIsEnforced() {
        assertThat(Rfc.ANNOTATED).extracting(Rfc.Rule::context).containsExactly("atom:feed", "atom:entry", "atom:entry");
        String author = "<author><name>a</name></author>";
        // each is grammar-valid, and breaks one rule
        String noContent = String.format(BARE, author + "<link rel='self' href='/a.atom'/>");
        String noAuthor = String.format(BARE, "<content>c</content>");
        String srcWithoutSummary = String.format(BARE, author + "<content type='image/png' src='/a.png'/>");
        String twoAlternates = String.format(BARE, author + "<link href='/a.html' type='text/html'/>"
                + "<link rel='alternate' href='/b.html' type='text/html'/>");
        String twoEdited = String.format(BARE, author + "<content>c</content><app:edited>2026-11-24T10:00:00Z</app:edited>"
                + "<app:edited>2026-11-24T10:00:00Z</app:edited>");
        for (String bad : List.of(noContent, noAuthor, srcWithoutSummary, twoAlternates, twoEdited)) {
            assertThat(Rfc.problems("atom.rnc", bad)).isEmpty();
            assertThat(Rfc.ruleProblems(bad)).as(bad).hasSize(1);
            assertThatThrownBy(() -> Rfc.assertAtom(bad)).isInstanceOf(AssertionError.class);
        }
        Rfc.assertAtom(String.format(BARE, author + "<content type='image/png' src='/a.png'/><summary/>"
                + "<link href='/a.html' type='text/html'/><link rel='alternate' href='/a.de.html' type='text/html' hreflang='de'/>"));
    }

    @Test void appElementsInsideAtomAreValidatedByRfc5023() {
        String author = "<author><name>a</name></author><content>c</content>";
        Rfc.assertAtom(String.format(BARE, author + "<app:edited>2026-11-24T10:00:00.123Z</app:edited>"
                + "<app:collection href='/store/a/?collection=b'><title>b</title><app:accept>image/png</app:accept></app:collection>"));
        assertThat(Rfc.ruleProblems(String.format(BARE, author + "<app:edited>yesterday</app:edited>"))).hasSize(1);
        // a collection needs an href and an atom:title
        assertThat(Rfc.ruleProblems(String.format(BARE, author + "<app:collection><app:accept/></app:collection>"))).isNotEmpty();
    }
}
