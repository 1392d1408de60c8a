package arno.pipeline;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.SaxonApiException;
import net.sf.saxon.s9api.XmlProcessingError;
import net.sf.saxon.s9api.XsltCompiler;
import net.sf.saxon.s9api.XsltPackage;

/**
 * The shared XSLT 3.0 packages, compiled once per server and imported into
 * every site's compiler. This is what keeps a site's cost in megabytes: the
 * platform Arno replaces compiled a private copy of the shared code per site.
 *
 * <p>Every {@code *.xsl} under the package folders whose root is
 * {@code xsl:package} is a package; they are compiled in dependency order
 * (of their {@code xsl:use-package}), each with the ones before it imported.
 */
final class Packages {
    private static final String XSL = "http://www.w3.org/1999/XSL/Transform";

    final List<XsltPackage> compiled;

    private Packages(List<XsltPackage> compiled) {
        this.compiled = compiled;
    }

    static Packages compile(Processor processor, List<Path> folders) {
        Map<String, Declared> byName = new LinkedHashMap<>();
        for (Path folder : folders) {
            for (Path file : xslFiles(folder)) {
                Declared d = declared(file);
                if (d == null) continue;
                Declared clash = byName.put(d.name, d);
                if (clash != null) {
                    throw new SiteException(file + ": package " + d.name + " is also declared by " + clash.file);
                }
            }
        }
        List<XsltPackage> done = new ArrayList<>();
        Set<String> compiledNames = new HashSet<>();
        List<Declared> pending = new ArrayList<>(byName.values());
        while (!pending.isEmpty()) {
            Declared next = pending.stream()
                    .filter(d -> d.uses.stream().allMatch(u -> compiledNames.contains(u) || !byName.containsKey(u)))
                    .findFirst()
                    .orElseThrow(() -> new SiteException("Packages use each other in a cycle: "
                            + pending.stream().map(d -> d.name + " (" + d.file + ")").toList()));
            done.add(compileOne(processor, next.file, done));
            compiledNames.add(next.name);
            pending.remove(next);
        }
        return new Packages(List.copyOf(done));
    }

    /** A compiler that sees every shared package; errors are collected into {@code errors}. */
    static XsltCompiler compiler(Processor processor, List<XsltPackage> packages, List<XmlProcessingError> errors) {
        XsltCompiler c = processor.newXsltCompiler();
        c.setErrorList(errors);
        for (XsltPackage p : packages) {
            try {
                c.importPackage(p);
            } catch (SaxonApiException e) {
                throw new SiteException("Cannot import package " + p.getName() + ": " + e.getMessage(), e);
            }
        }
        return c;
    }

    XsltCompiler compiler(Processor processor, List<XmlProcessingError> errors) {
        return compiler(processor, compiled, errors);
    }

    private static XsltPackage compileOne(Processor processor, Path file, List<XsltPackage> before) {
        List<XmlProcessingError> errors = new ArrayList<>();
        try {
            return compiler(processor, before, errors).compilePackage(new javax.xml.transform.stream.StreamSource(file.toFile()));
        } catch (SaxonApiException e) {
            throw new SiteException("Shared package " + file + " does not compile:\n" + Compiler.describe(errors, e), e);
        }
    }

    static List<Path> xslFiles(Path folder) {
        if (!Files.isDirectory(folder)) return List.of();
        try (Stream<Path> s = Files.walk(folder)) {
            return s.filter(p -> p.toString().endsWith(".xsl") && Files.isRegularFile(p)).sorted().toList();
        } catch (IOException e) {
            throw new SiteException("Cannot list " + folder + ": " + e.getMessage(), e);
        }
    }

    private record Declared(String name, Path file, List<String> uses) {}

    /** Reads a package's name and the packages it uses, or null if the file is not a package. */
    private static Declared declared(Path file) {
        XMLInputFactory f = XMLInputFactory.newDefaultFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        try (InputStream in = Files.newInputStream(file)) {
            XMLStreamReader r = f.createXMLStreamReader(in);
            String name = null;
            List<String> uses = new ArrayList<>();
            boolean root = true;
            while (r.hasNext()) {
                if (r.next() != XMLStreamReader.START_ELEMENT) continue;
                boolean xsl = XSL.equals(r.getNamespaceURI());
                if (root) {
                    if (!xsl || !r.getLocalName().equals("package")) return null;
                    name = r.getAttributeValue(null, "name");
                    if (name == null) throw new SiteException(file + ": xsl:package has no name attribute");
                    root = false;
                } else if (xsl && r.getLocalName().equals("use-package")) {
                    uses.add(r.getAttributeValue(null, "name"));
                }
            }
            return new Declared(name, file, uses);
        } catch (XMLStreamException e) {
            javax.xml.stream.Location l = e.getLocation();
            throw new SiteException(file + (l != null ? " line " + l.getLineNumber() + " column " + l.getColumnNumber() : "")
                    + ": not well-formed: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new SiteException("Cannot read " + file + ": " + e.getMessage(), e);
        }
    }
}
