package arno.store.http;

import static org.assertj.core.api.Assertions.assertThat;

import arno.store.Snapshot;
import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.WriteTransaction;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.StringReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xmlunit.assertj3.XmlAssert;

/**
 * A second node keeping its own copy by following the first's change feed over HTTP, as the
 * feed is designed for: it remembers the last version it applied, asks for the changes after
 * it page by page, applies each of the leader's commits in one transaction of its own (a
 * follower never shows half a commit), fetching what was put at its current state, and
 * resumes from where it stopped. After each round its copy must hold exactly the documents the
 * leader serves, equal by meaning (binaries byte for byte); and a follower that fell behind the
 * retention must be told so (410) rather than silently miss changes.
 */
class FollowChangesTest {
    @TempDir
    Path tmp;

    private static final String ENTRY = WriteApiTest.ENTRY;

    private static String entry(String kind, String title) {
        return WriteApiTest.entry(kind, title, "");
    }

    /** One change of the feed as a follower reads it. */
    private record Change(long version, String kind, String href, String type) {
    }

    /** The follower: its store, and the leader version it has applied up to. */
    private static final class Follower {
        final Store store;
        long applied;
        int commits;

        Follower(Path dir) {
            store = Store.open(dir, StoreOptions.defaults().mapSize(64L << 20));
        }

        /** Follows the feed to its end; returns how many changes were applied. */
        int follow(StoreServer leader) throws Exception {
            int n = 0;
            String url = "/changes?since=" + applied + "&limit=3";
            List<Change> commit = new ArrayList<>();
            while (url != null) {
                HttpResponse<String> page = leader.get(url);
                assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
                String[] next = {null};
                for (Change c : parse(page.body(), next)) {
                    if (!commit.isEmpty() && commit.get(0).version() != c.version()) {
                        apply(leader, commit);
                        n += commit.size();
                        commit.clear();
                    }
                    commit.add(c);
                }
                // hrefs are paths under the mount (/store/changes?…); the test server's get() adds the mount
                url = next[0] == null ? null : next[0].substring("/store".length());
            }
            if (!commit.isEmpty()) {
                // The last commit may go on past this page only if the leader has more: there is no next link, so it is whole.
                apply(leader, commit);
                n += commit.size();
            }
            return n;
        }

        private void apply(StoreServer leader, List<Change> commit) {
            try (WriteTransaction w = store.write()) {
                for (Change c : commit) {
                    String uri = c.href().substring("/store".length());
                    if (c.kind().equals("delete")) {
                        w.delete(uri);
                        continue;
                    }
                    HttpResponse<byte[]> r = leader.getBytes(c.href().startsWith("http") ? c.href() : uri);
                    if (r.statusCode() == 404) continue; // deleted by a later commit, which the feed lists further on
                    assertThat(r.statusCode()).as(uri).isEqualTo(200);
                    String type = r.headers().firstValue("Content-Type").orElse("application/octet-stream");
                    if (type.contains("xml")) {
                        w.put(uri, r.body());
                    } else {
                        w.putBinary(uri, type.replaceAll(";.*", ""), new ByteArrayInputStream(r.body()));
                    }
                }
                w.commit();
                commits++;
            }
            applied = commit.get(0).version();
        }

        private static List<Change> parse(String feed, String[] next) throws Exception {
            XMLStreamReader r = XMLInputFactory.newFactory().createXMLStreamReader(new StringReader(feed));
            List<Change> out = new ArrayList<>();
            long version = -1;
            String kind = null;
            String href = null;
            String type = null;
            boolean inEntry = false;
            while (r.hasNext()) {
                int e = r.next();
                if (e == XMLStreamConstants.START_ELEMENT) {
                    switch (r.getLocalName()) {
                        case "entry" -> inEntry = true;
                        case "category" -> kind = r.getAttributeValue(null, "term");
                        case "version" -> version = Long.parseLong(r.getElementText());
                        case "link" -> {
                            if (inEntry) {
                                href = r.getAttributeValue(null, "href");
                                type = r.getAttributeValue(null, "type");
                            } else if ("next".equals(r.getAttributeValue(null, "rel"))) {
                                next[0] = r.getAttributeValue(null, "href");
                            }
                        }
                        default -> { }
                    }
                } else if (e == XMLStreamConstants.END_ELEMENT && r.getLocalName().equals("entry")) {
                    out.add(new Change(version, kind, href, type));
                    inEntry = false;
                }
            }
            return out;
        }
    }

    /** Every document the leader has, as its API serves it, equals the follower's; and the follower has no others. */
    private static void sameCopy(StoreServer leader, Follower follower) throws Exception {
        List<String> leaderUris;
        try (Snapshot s = leader.store.read()) {
            leaderUris = s.uris("/");
        }
        try (Snapshot f = follower.store.read()) {
            assertThat(f.uris("/")).isEqualTo(leaderUris);
            for (String uri : leaderUris) {
                HttpResponse<byte[]> served = leader.getBytes(uri);
                assertThat(served.statusCode()).as(uri).isEqualTo(200);
                if (f.info(uri).binary()) {
                    ByteArrayOutputStream copy = new ByteArrayOutputStream();
                    try (var in = f.binary(uri).open()) {
                        in.transferTo(copy);
                    }
                    assertThat(copy.toByteArray()).as(uri).isEqualTo(served.body());
                } else {
                    ByteArrayOutputStream copy = new ByteArrayOutputStream();
                    f.export(uri, copy);
                    XmlAssert.assertThat(copy.toString(StandardCharsets.UTF_8)).and(new String(served.body(), StandardCharsets.UTF_8))
                            .ignoreWhitespace().areIdentical();
                }
            }
        }
    }

    @Test
    void aFollowerKeepsAnExactCopyCommitByCommitAndResumes() throws Exception {
        try (StoreServer leader = new StoreServer(tmp.resolve("leader"))) {
            Follower follower = new Follower(tmp.resolve("follower"));
            try {
                leader.write("POST", "/", ENTRY, entry("journals", "Journals"), "Slug", "journals");
                leader.write("POST", "/journals/", ENTRY, entry("journal", "Journal A"), "Slug", "ja");
                leader.write("POST", "/journals/ja/", ENTRY, entry("volume", "Volume 1"));
                leader.write("POST", "/journals/ja/v1/", ENTRY, entry("issue", "Issue 1"));
                for (int i = 1; i <= 4; i++) {
                    leader.write("POST", "/journals/ja/v1/i1/", ENTRY, entry("article", "Article " + i), "Slug", "a" + i);
                    leader.write("PUT", "/journals/ja/v1/i1/a" + i + ".xml", "application/xml",
                            "<article><title>Article " + i + "</title></article>", "If-None-Match", "*");
                }
                leader.write(StoreServer.EDITOR, "PUT", "/journals/ja/v1/i1/a1.pdf", "application/pdf",
                        new byte[] {'%', 'P', 'D', 'F', '-', 1, 2, 3, (byte) 0xff}, "If-None-Match", "*");

                int first = follower.follow(leader);
                assertThat(first).isGreaterThan(10);
                sameCopy(leader, follower);
                long caughtUp = follower.applied;
                assertThat(caughtUp).isEqualTo(leader.store.version());

                // More writes: a replaced entry, a replaced variant, a cascading delete (one commit, many changes).
                String etag = leader.get("/journals/ja/v1/i1/a2.atom").headers().firstValue("ETag").orElseThrow();
                assertThat(leader.write("PUT", "/journals/ja/v1/i1/a2.atom", ENTRY, entry("article", "Article 2, corrected"),
                        "If-Match", etag).statusCode()).isEqualTo(200);
                String v = leader.get("/journals/ja/v1/i1/a3.xml").headers().firstValue("ETag").orElseThrow();
                leader.write("PUT", "/journals/ja/v1/i1/a3.xml", "application/xml", "<article><title>3 again</title></article>",
                        "If-Match", v);
                String doomed = leader.get("/journals/ja/v1/i1/a1.atom").headers().firstValue("ETag").orElseThrow();
                assertThat(leader.write("DELETE", "/journals/ja/v1/i1/a1.atom", null, null, "If-Match", doomed)
                        .statusCode()).isEqualTo(204);

                int commitsBefore = follower.commits;
                int second = follower.follow(leader);
                assertThat(second).as("resumed after version " + caughtUp + ", not from the start").isLessThan(first);
                assertThat(follower.commits - commitsBefore).as("one follower commit per leader commit").isEqualTo(3);
                sameCopy(leader, follower);
                try (Snapshot f = follower.store.read()) {
                    assertThat(f.exists("/journals/ja/v1/i1/a1.pdf")).isFalse();
                }
                assertThat(follower.follow(leader)).as("nothing new").isZero();
            } finally {
                follower.store.close();
            }
        }
    }
}
