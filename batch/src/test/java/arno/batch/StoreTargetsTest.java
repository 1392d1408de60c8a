package arno.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import arno.store.DocumentInfo;
import arno.store.Snapshot;
import arno.store.Store;
import arno.store.StoreOptions;
import arno.store.atom.AtomOptions;
import arno.store.atom.AtomStore;
import arno.store.atom.ResourcePath;
import arno.xml.Accounts;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.StringReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import javax.xml.transform.stream.StreamSource;
import net.sf.saxon.lib.ResourceCollection;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.QName;
import net.sf.saxon.s9api.XdmAtomicValue;
import net.sf.saxon.s9api.XdmDestination;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.Xslt30Transformer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xmlunit.assertj3.XmlAssert;

/**
 * Batches whose inputs and outputs are store resources ({@code store:/…}): a real LMDB store and
 * its service in a temp folder, the batch service behind a real Tomcat, real Saxon. Outputs are
 * checked against the same stylesheet run by plain Saxon over the exported (serialized) input, so
 * the expectation is computed, not copied from the output.
 */
class StoreTargetsTest {
    private static final Map<String, String> NS = Map.of("b", "urn:arno:batch", "a", "http://www.w3.org/2005/Atom",
            "arno", "urn:arno:atom", "err", "urn:arno:error", "h", "http://www.w3.org/1999/xhtml");

    @TempDir static Path tmp;
    static Store store;
    static AtomStore atom;
    static TestServer server;
    static ResourcePath volume;

    @BeforeAll static void start() {
        store = Store.open(tmp.resolve("store"), StoreOptions.defaults().mapSize(256L << 20));
        atom = AtomStore.open(store, AtomOptions.defaults());
        ResourcePath journals = atom.createEntry(ResourcePath.ROOT, null, "journals", entry("journals", "Journals"), "ed").path();
        ResourcePath ja = atom.createEntry(journals, null, "ja", entry("journal", "Journal of Arno"), "ed").path();
        volume = atom.createEntry(ja, null, null, entry("volume", "Volume 1"), "ed").path();
        server = new TestServer(tmp, b -> b.store(atom));
        TestResources.copy("store-to-xhtml.xsl", server.root.resolve("xsl"));
        TestResources.copy("store-terminate.xsl", server.root.resolve("xsl"));
    }

    @AfterAll static void stop() {
        server.close();
        atom.close();
        store.close();
    }

    static byte[] entry(String kind, String title) {
        return ("<entry xmlns=\"http://www.w3.org/2005/Atom\"><title>" + title + "</title>"
                + "<category scheme=\"urn:arno:kind\" term=\"" + kind + "\"/></entry>").getBytes(StandardCharsets.UTF_8);
    }

    /** A new issue of the volume holding articles {@code names} with their JATS-like .xml variants. */
    static ResourcePath issue(String... names) {
        ResourcePath issue = atom.createEntry(volume, null, null, entry("issue", "An issue"), "ed").path();
        int sections = 1;
        for (String name : names) {
            ResourcePath a = atom.createEntry(issue, null, name, entry("article", "Article " + name), "ed").path();
            byte[] jats = TestResources.article(name, "Title of " + name, sections++).getBytes(StandardCharsets.UTF_8);
            atom.putVariant(a, "xml", "application/xml", 0, new ByteArrayInputStream(jats), "ed");
        }
        return issue;
    }

    static String export(String path) {
        try (Snapshot s = store.read()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            s.export(path, out);
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    static DocumentInfo info(String path) {
        try (Snapshot s = store.read()) {
            return s.info(path);
        }
    }

    static XmlAssert xml(String document) {
        return XmlAssert.assertThat(document).withNamespaceContext(NS);
    }

    /**
     * What the stylesheet gives for the stored document {@code path} when plain Saxon runs it over
     * the exported XML, {@code doc()} and {@code collection()} of store: URIs answered from exports too.
     */
    static String expected(String stylesheet, String path, String issueFolder) throws Exception {
        Processor saxon = new Processor(false);
        saxon.getUnderlyingConfiguration().setResourceResolver(request -> request.uri != null && request.uri.startsWith("store:")
                ? new StreamSource(new StringReader(export(request.uri.substring(6))), request.uri) : null);
        saxon.getUnderlyingConfiguration().setCollectionFinder((context, uri) -> {
            List<String> members = new ArrayList<>();
            try (Snapshot s = store.read()) {
                for (String u : s.uris(uri.substring(6))) if (!s.info(u).binary()) members.add("store:" + u);
            }
            return arno.xml.Access.collection(uri, members, saxon.getUnderlyingConfiguration().getResourceResolver(),
                    saxon.getUnderlyingConfiguration());
        });
        Xslt30Transformer t = saxon.newXsltCompiler().compile(new StreamSource(server.root.resolve("xsl/" + stylesheet).toFile())).load30();
        t.setStylesheetParameters(Map.of(new QName("issue"), new XdmAtomicValue(issueFolder)));
        t.setResultDocumentHandler(uri -> new XdmDestination());
        XdmDestination out = new XdmDestination();
        t.transform(new StreamSource(new StringReader(export(path)), "store:" + path), out);
        return out.getXdmNode().toString();
    }

    static String batch(String stylesheet, String issueFolder, String inputs) {
        return "<batch xmlns=\"urn:arno:batch\" parallelism=\"2\">\n  <stylesheet href=\"xsl/" + stylesheet + "\"/>\n"
                + "  <param name=\"issue\">" + issueFolder + "</param>\n" + inputs + "</batch>";
    }

    static String input(String in, String out) {
        return "  <input href=\"" + in + "\" output=\"" + out + "\"/>\n";
    }

    @Test void storedArticlesBecomeXhtmlVariantsCommittedWithTheirEntries() throws Exception {
        ResourcePath issue = issue("a0001", "a0002", "a0003");
        String folder = "store:" + issue.childrenFolder();
        StringBuilder inputs = new StringBuilder();
        for (String a : List.of("a0001", "a0002", "a0003")) {
            String p = "store:" + issue.child(a).path();
            inputs.append(input(p + ".xml", p + ".xhtml"));
        }
        String job = server.submit(batch("store-to-xhtml.xsl", folder, inputs.toString()));
        String status = server.awaitFinished(job);
        assertThat(TestServer.status(status)).as(server.get(job + "/report").body()).isEqualTo("completed");
        String report = server.get(job + "/report").body();
        String html = server.get(job + "/report?format=html").body();

        for (int i = 1; i <= 3; i++) {
            ResourcePath a = issue.child("a000" + i);
            String xhtml = a.variantDocument("xhtml");
            // the stored variant is what plain Saxon makes of the exported input (doc() and collection() included)
            String expected = expected("store-to-xhtml.xsl", a.variantDocument("xml"), folder);
            XmlAssert.assertThat(export(xhtml)).and(expected).ignoreWhitespace().areIdentical();
            xml(export(xhtml)).valueByXPath("/h:html/h:body/h:p[@class='journal']").isEqualTo("Journal of Arno");
            xml(export(xhtml)).valueByXPath("/h:html/h:body/h:p[@class='articles']").isEqualTo("3");
            DocumentInfo variant = info(xhtml);
            assertThat(variant.mediaType()).isEqualTo("application/xhtml+xml");
            assertThat(variant.binary()).isFalse();

            // the entry: replaced by the result document, with the service's alternate link to the new variant
            String entry = export(a.entryDocument());
            xml(entry).valueByXPath("/a:entry/a:summary").isEqualTo(i + " sections");
            xml(entry).valueByXPath("/a:entry/a:category[@scheme='urn:arno:kind']/@term").isEqualTo("article");
            xml(entry).nodesByXPath("/a:entry/a:link[@rel='alternate'][@arno:role='xhtml'][@href='" + xhtml + "']").exist();
            xml(entry).nodesByXPath("/a:entry/a:link[@rel='alternate'][@arno:role='jats']").exist();
            // ... written as the submitting account
            xml(entry).valueByXPath("/a:entry/a:author/a:name").isEqualTo(TestServer.USER);

            // one transaction: the variant and the entry carry the same version, which the report names
            assertThat(info(a.entryDocument()).version()).isEqualTo(variant.version());
            String t = "/b:report/b:transformation[@input='store:" + a.variantDocument("xml") + "']";
            xml(report).valueByXPath(t + "/@output").isEqualTo("store:" + xhtml);
            xml(report).valueByXPath(t + "/@store-version").isEqualTo(String.valueOf(variant.version()));
            xml(report).valueByXPath(t + "/b:result-document/@href").isEqualTo("store:" + a.entryDocument());
            assertThat(html).contains("store:" + xhtml + " (store version " + variant.version() + ")");
        }
    }

    @Test void aMissingStoredInputFailsOnlyThatInput() {
        ResourcePath issue = issue("c0001");
        String p = "store:" + issue.child("c0001").path();
        String missing = "store:" + issue.child("c0009").path();
        String job = server.submit(batch("store-to-xhtml.xsl", "store:" + issue.childrenFolder(),
                input(missing + ".xml", missing + ".xhtml") + input(p + ".xml", p + ".xhtml")));
        String status = server.awaitFinished(job);
        assertThat(TestServer.status(status)).isEqualTo("failed");
        assertThat(status).contains("succeeded=\"1\"").contains("failed=\"1\"");
        String report = server.get(job + "/report").body();
        xml(report).valueByXPath("//b:transformation[@index='1']/err:error/@code").isEqualTo("not-found");
        xml(report).valueByXPath("//b:transformation[@index='1']/err:error/err:message").asString().contains(missing + ".xml");
        xml(report).valueByXPath("//b:transformation[@index='1']/err:error/err:location/@uri").isEqualTo(missing + ".xml");
        xml(report).valueByXPath("//b:transformation[@index='2']/@status").isEqualTo("ok");
        assertThat(info(issue.child("c0001").variantDocument("xhtml"))).isNotNull();
    }

    @Test void aTransformationThatFailsAfterWritingResultDocumentsStoresNothing() throws Exception {
        ResourcePath issue = issue("b0001", "b0002");
        ResourcePath b1 = issue.child("b0001");
        long entryVersion = info(b1.entryDocument()).version();
        long before = store.version();
        String p = "store:" + b1.path();
        String job = server.submit(batch("store-terminate.xsl", "store:" + issue.childrenFolder(), input(p + ".xml", p + ".xhtml"))
                .replace("<param name=\"issue\">store:" + issue.childrenFolder() + "</param>\n", ""));
        String status = server.awaitFinished(job);
        assertThat(TestServer.status(status)).isEqualTo("failed");
        String report = server.get(job + "/report").body();
        // both result documents were under way when the stylesheet stopped
        xml(report).nodesByXPath("//b:transformation/b:result-document").hasSize(2);
        xml(report).valueByXPath("//b:transformation/err:error/@processor-code").isEqualTo("Q{urn:test}stop");
        xml(report).nodesByXPath("//b:transformation/@store-version").doNotExist();
        // nothing of the input: no new commit, no variant, the entry as it was
        assertThat(store.version()).isEqualTo(before);
        assertThat(info(b1.variantDocument("xhtml"))).isNull();
        assertThat(info(issue.child("b0002").variantDocument("xhtml"))).isNull();
        assertThat(info(b1.entryDocument()).version()).isEqualTo(entryVersion);
        xml(export(b1.entryDocument())).valueByXPath("/a:entry/a:title").isEqualTo("Article b0001");
        // and no temporary output is left in the job's folder
        Path scratch = server.work.resolve("jobs").resolve(job.substring(job.lastIndexOf('/') + 1)).resolve("tmp");
        if (Files.exists(scratch)) {
            try (var files = Files.list(scratch)) {
                assertThat(files.map(f -> f.getFileName().toString())).noneMatch(n -> n.startsWith("put-"));
            }
        }
    }

    @Test void outputsTheModelRefusesFailTheirInputNamingTheUriAndTheRule() {
        ResourcePath issue = issue("d0001");
        ResourcePath d1 = issue.child("d0001");
        long entryVersion = info(d1.entryDocument()).version();
        long before = store.version();
        String p = "store:" + d1.path();
        String noEntry = "store:" + issue.child("nope").path() + ".xhtml";
        String job = server.submit(batch("store-to-xhtml.xsl", "store:" + issue.childrenFolder(),
                input(p + ".xml", noEntry) + input(p + ".xml", p + ".html")));
        String status = server.awaitFinished(job);
        assertThat(TestServer.status(status)).isEqualTo("failed");
        assertThat(status).contains("failed=\"2\"");
        String report = server.get(job + "/report").body();
        // a variant of an entry that does not exist
        xml(report).valueByXPath("//b:transformation[@index='1']/err:error/@code").isEqualTo("not-found");
        xml(report).valueByXPath("//b:transformation[@index='1']/err:error/err:message").asString()
                .contains(issue.child("nope").path());
        // a variant the article kind does not declare: the rule and where it is written
        xml(report).valueByXPath("//b:transformation[@index='2']/err:error/@code").isEqualTo("unprocessable");
        xml(report).valueByXPath("//b:transformation[@index='2']/err:error/err:message").asString()
                .contains(d1.variantDocument("html")).contains("no variant with the extension 'html'").contains("/_model/article.xml");
        // each input's result document (the entry, which the store would accept) went with its refused output
        assertThat(store.version()).isEqualTo(before);
        assertThat(info(d1.entryDocument()).version()).isEqualTo(entryVersion);
        assertThat(info(d1.variantDocument("html"))).isNull();
    }

    @Test void storeOutputsNeedTheWriteRole() throws Exception {
        server.service.accounts().add("reader", "reader-password", EnumSet.of(Accounts.Role.READ));
        String p = "store:" + volume.path() + "/i1/a0001";
        String batch = batch("store-to-xhtml.xsl", "store:/journals/", input(p + ".xml", p + ".xhtml"));
        int jobs = server.service.jobs().size();

        HttpResponse<String> r = server.post(batch, "reader:reader-password", null);
        assertThat(r.statusCode()).isEqualTo(403);
        xml(r.body()).valueByXPath("/err:error/@code").isEqualTo("forbidden");

        // the service's own rule, whoever calls it: nothing is queued, no job folder is left
        long folders;
        try (var list = Files.list(server.work.resolve("jobs"))) {
            folders = list.count();
        }
        Accounts.Account reader = new Accounts.Account("reader", EnumSet.of(Accounts.Role.READ));
        assertThatThrownBy(() -> server.service.submit(new ByteArrayInputStream(batch.getBytes(StandardCharsets.UTF_8)),
                server.root.toUri().toString(), reader))
                .isInstanceOfSatisfying(ArnoException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN);
                    assertThat(e.getMessage()).contains("reader").contains("write role").contains(p + ".xhtml");
                    assertThat(e.where().line()).isEqualTo(4);
                });
        assertThat(server.service.jobs()).hasSize(jobs);
        try (var list = Files.list(server.work.resolve("jobs"))) {
            assertThat(list.count()).isEqualTo(folders);
        }
    }

    @Test void stylesheetsAreNotReadFromTheStore() {
        HttpResponse<String> r = server.post("""
                <batch xmlns="urn:arno:batch"><stylesheet href="store:/journals/x.xsl"/>
                  <input href="store:/journals/ja/v1/i1/a0001.xml"/></batch>""");
        assertThat(r.statusCode()).isEqualTo(400);
        xml(r.body()).valueByXPath("/err:error/@code").isEqualTo("unsupported-uri");
        xml(r.body()).valueByXPath("/err:error/err:message").asString().contains("not from the store");
    }

    @Test void outputsThatAreNoResourceDocumentsAreRefusedAtSubmission() {
        HttpResponse<String> r = server.post(batch("store-to-xhtml.xsl", "store:/journals/",
                input("store:/journals/ja/v1/i1/a0001.xml", "store:/_model/article.xml")));
        assertThat(r.statusCode()).isEqualTo(400);
        xml(r.body()).valueByXPath("/err:error/@code").isEqualTo("unsupported-uri");
        xml(r.body()).valueByXPath("/err:error/err:message").asString().contains("not a resource document");
        xml(r.body()).valueByXPath("/err:error/err:location/@line").isEqualTo("4");
    }

    @Test void withoutAStoreAStoreUriIsRefusedAtSubmission(@TempDir Path other) {
        try (TestServer plain = new TestServer(other)) {
            TestResources.copy("store-to-xhtml.xsl", plain.root.resolve("xsl"));
            HttpResponse<String> r = plain.post(batch("store-to-xhtml.xsl", "store:/journals/",
                    input("store:/journals/ja/v1/i1/a0001.xml", "out/a0001.xhtml")));
            assertThat(r.statusCode()).isEqualTo(404);
            xml(r.body()).valueByXPath("/err:error/@code").isEqualTo("no-store");
            xml(r.body()).valueByXPath("/err:error/err:message").asString().contains("this server has no store")
                    .contains("store:/journals/ja/v1/i1/a0001.xml");
            assertThat(plain.service.jobs()).isEmpty();
        }
    }
}
