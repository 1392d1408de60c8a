package arno.pipeline;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Where;
import arno.xml.XmlPolicy;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import javax.xml.transform.stream.StreamSource;
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
 * <p>Where packages come from: every {@code *.xsl} under the package folders whose root is
 * {@code xsl:package} (a checkout's {@code templates/xsl} and {@code stylesheets/packages}, so
 * that edits reload in development), and, when asked, every file that a jar on the class path
 * lists in its {@code arno/packages.list} (one class-path resource name per line: jars cannot be
 * listed portably, so each lists its own). A package in a folder replaces a class-path package of
 * the same name; two folders declaring one name are an error. They are compiled in dependency
 * order (of their {@code xsl:use-package}), each with the ones before it imported.
 */
final class Packages {
    private static final String XSL = "http://www.w3.org/1999/XSL/Transform";
    static final String INDEX = "arno/packages.list";

    final List<XsltPackage> compiled;
    /** Where each compiled package came from, by name; the default error page is looked up here. */
    final Map<String, String> sources;

    private Packages(List<XsltPackage> compiled, Map<String, String> sources) {
        this.compiled = compiled;
        this.sources = sources;
    }

    static Packages compile(Processor processor, List<Path> folders, boolean classPath, XmlPolicy policy) {
        Map<String, Declared> byName = new LinkedHashMap<>();
        for (Path folder : folders) {
            for (Path file : xslFiles(folder)) {
                Declared d = declared(file.toUri().toString(), policy);
                if (d == null) continue;
                Declared clash = byName.put(d.name, d);
                if (clash != null) {
                    throw ErrorMessage.PACKAGE_TWICE.error(file, d.name, clash.uri)
                            .at(Where.at(file.toString()));
                }
            }
        }
        if (classPath) {
            for (String uri : classPathSources()) {
                Declared d = declared(uri, policy);
                if (d != null && !byName.containsKey(d.name)) byName.put(d.name, d);
            }
        }
        List<XsltPackage> done = new ArrayList<>();
        Map<String, String> sources = new LinkedHashMap<>();
        Set<String> compiledNames = new HashSet<>();
        List<Declared> pending = new ArrayList<>(byName.values());
        while (!pending.isEmpty()) {
            Declared next = pending.stream()
                    .filter(d -> d.uses.stream().allMatch(u -> compiledNames.contains(u) || !byName.containsKey(u)))
                    .findFirst()
                    .orElseThrow(() -> ErrorMessage.PACKAGE_CYCLE.error(
                            pending.stream().map(d -> d.name + " (" + d.uri + ")").toList()));
            done.add(compileOne(processor, next.uri, done));
            compiledNames.add(next.name);
            sources.put(next.name, next.uri);
            pending.remove(next);
        }
        return new Packages(List.copyOf(done), Map.copyOf(sources));
    }

    /**
     * The scheme under which class-path packages are compiled. Not their jar: URL: Saxon resolves
     * a URI against a jar: base with java.net.URL, which refuses schemes it does not know, so
     * doc('content:/...') in a package compiled from a jar failed. {@link Resources} reads this
     * scheme (for stylesheet code only) from Arno's class loader.
     */
    static final String CLASS_PATH = "classpath:/";

    /** Opens a package or stylesheet source: a {@link #CLASS_PATH} resource or a URL. */
    static InputStream open(String uri) throws IOException {
        if (uri.startsWith(CLASS_PATH)) {
            InputStream in = Packages.class.getClassLoader().getResourceAsStream(uri.substring(CLASS_PATH.length()));
            if (in == null) throw new java.io.FileNotFoundException(uri + " is not on the class path");
            return in;
        }
        return new URL(uri).openStream();
    }

    /** The {@link #CLASS_PATH} URIs of the packages listed by every {@link #INDEX} on the class path. */
    static List<String> classPathSources() {
        List<String> uris = new ArrayList<>();
        ClassLoader loader = Packages.class.getClassLoader();
        try {
            Enumeration<URL> indexes = loader.getResources(INDEX);
            while (indexes.hasMoreElements()) {
                URL index = indexes.nextElement();
                try (BufferedReader r = new BufferedReader(new InputStreamReader(index.openStream(), StandardCharsets.UTF_8))) {
                    for (String line = r.readLine(); line != null; line = r.readLine()) {
                        String name = line.strip();
                        if (name.isEmpty() || name.startsWith("#")) continue;
                        if (loader.getResource(name) == null) {
                            throw ErrorMessage.PACKAGE_NOT_ON_CLASS_PATH.error(index, name);
                        }
                        uris.add(CLASS_PATH + name);
                    }
                }
            }
        } catch (IOException e) {
            throw ErrorMessage.PACKAGE_LISTS_UNREADABLE.error(e, INDEX, e.getMessage());
        }
        return uris;
    }

    /** A compiler that sees every shared package; errors are collected into {@code errors}. */
    static XsltCompiler compiler(Processor processor, List<XsltPackage> packages, List<XmlProcessingError> errors) {
        XsltCompiler c = processor.newXsltCompiler();
        c.setErrorList(errors);
        for (XsltPackage p : packages) {
            try {
                c.importPackage(p);
            } catch (SaxonApiException e) {
                throw ErrorMessage.PACKAGE_NOT_IMPORTED.error(e, p.getName(), e.getMessage());
            }
        }
        return c;
    }

    XsltCompiler compiler(Processor processor, List<XmlProcessingError> errors) {
        return compiler(processor, compiled, errors);
    }

    private static XsltPackage compileOne(Processor processor, String uri, List<XsltPackage> before) {
        List<XmlProcessingError> errors = new ArrayList<>();
        try (InputStream in = open(uri)) {
            return compiler(processor, before, errors).compilePackage(new StreamSource(in, uri));
        } catch (IOException e) {
            throw ErrorMessage.PACKAGE_UNREADABLE.error(e, uri, e.getMessage());
        } catch (SaxonApiException e) {
            ArnoException c = Compiler.compileError(errors, e);
            throw ErrorMessage.PACKAGE_NOT_COMPILED.error(e, uri, Compiler.summary(c.details(), e)).at(c.where()).processorCode(c.processorCode()).details(c.details());
        }
    }

    static List<Path> xslFiles(Path folder) {
        if (!Files.isDirectory(folder)) return List.of();
        try (Stream<Path> s = Files.walk(folder)) {
            return s.filter(p -> p.toString().endsWith(".xsl") && Files.isRegularFile(p)).sorted().toList();
        } catch (IOException e) {
            throw ErrorMessage.PACKAGE_FOLDER_UNLISTED.error(e, folder, e.getMessage());
        }
    }

    private record Declared(String name, String uri, List<String> uses) {}

    /**
     * Reads a package's name and the packages it uses, or null if the file is not a package.
     * Parsed by the one policy, as Saxon will parse it to compile it.
     */
    private static Declared declared(String uri, XmlPolicy policy) {
        String[] name = {null};
        boolean[] isPackage = {false};
        List<String> uses = new ArrayList<>();
        org.xml.sax.helpers.DefaultHandler h = new org.xml.sax.helpers.DefaultHandler() {
            private boolean root = true;

            @Override
            public void startElement(String ns, String local, String qName, org.xml.sax.Attributes atts) {
                boolean xsl = XSL.equals(ns);
                if (root) {
                    root = false;
                    isPackage[0] = xsl && local.equals("package");
                    name[0] = atts.getValue("", "name");
                } else if (isPackage[0] && xsl && local.equals("use-package")) {
                    uses.add(atts.getValue("", "name"));
                }
            }
        };
        try (InputStream in = open(uri)) {
            org.xml.sax.XMLReader reader = policy.borrowReader();
            reader.setContentHandler(h);
            org.xml.sax.InputSource source = new org.xml.sax.InputSource(in);
            source.setSystemId(uri);
            reader.parse(source);
        } catch (IOException | org.xml.sax.SAXException e) {
            ArnoException cause = XmlPolicy.translate(e, uri);
            throw cause.as(ErrorCode.SITE_ERROR, e).at(cause.where());
        }
        if (!isPackage[0]) return null;
        if (name[0] == null) throw ErrorMessage.PACKAGE_UNNAMED.error(uri).at(Where.at(uri));
        return new Declared(name[0], uri, uses);
    }
}
