package arno.store.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The grammars themselves: they accept what the RFCs allow and refuse what they do not, so a
 * passing validation elsewhere means something. The last case is why expansions wrap inlined
 * entries in {@code arno:inline}: an atom:entry straight inside atom:link is not RFC 4287.
 */
class RfcTest {
    static final String ENTRY = "<entry xmlns='http://www.w3.org/2005/Atom'><id>urn:x</id><title>t</title>"
            + "<updated>2026-11-24T10:00:00Z</updated>%s</entry>";

    @Test void aMinimalEntryAndFeedAreValid() {
        Rfc.assertAtom(String.format(ENTRY, "<link rel='self' href='/a.atom'/><foo xmlns='urn:ext'>x</foo>"));
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
}
