package arno.batch;

import arno.store.atom.ResourcePath;
import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.FileRoots;
import arno.xml.Outbound;
import java.net.URI;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;

/**
 * Resolves the URIs a batch names (stylesheet, inputs, outputs, result documents) and checks
 * them against the service's one policy: files must lie under the {@link FileRoots}, URLs must
 * pass the {@link Outbound} policy, {@code store:} URIs must name a document of the server's store
 * (an output: a resource document, {@code PATH.atom} or {@code PATH.EXT}), and nothing else is
 * accepted. Immutable and thread-safe.
 */
final class Targets {
    private final FileRoots roots;
    private final Outbound outbound;
    private final boolean store;

    /** {@code store}: whether the server has a store, so that {@code store:} URIs may be named. */
    Targets(FileRoots roots, Outbound outbound, boolean store) {
        this.roots = roots;
        this.outbound = outbound;
        this.store = store;
    }

    FileRoots roots() {
        return roots;
    }

    Outbound outbound() {
        return outbound;
    }

    /**
     * The base of relative references when a batch names none: the first root as a folder URI;
     * with no roots, the file system's root, under which nothing is allowed.
     */
    URI defaultBase() {
        return roots.isEmpty() ? URI.create("file:///") : roots.list().get(0).toUri();
    }

    /**
     * Resolves {@code ref} (a URI or a plain path) against {@code base} and checks it.
     * {@code what} names the reference in errors ("input", "output"). With {@code checkHost}
     * the host of a URL is checked now (its addresses looked up), so a batch that names a
     * private address is refused when it is submitted; every fetch checks again anyway.
     */
    Batch.Target resolve(String ref, URI base, String what, boolean checkHost) {
        URI uri = FileRoots.toUri(ref, base, what);
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        switch (scheme) {
            case "http", "https" -> {
                if (uri.getHost() == null) throw ErrorMessage.URL_WITHOUT_HOST.error(what, uri);
                if (checkHost) {
                    try {
                        outbound.check(uri, what);
                    } catch (ArnoException e) {
                        // An unknown host is that input's failure when it runs, not the batch's.
                        if (e.code() == ErrorCode.URI_REFUSED) throw e;
                    }
                }
                return new Batch.Target(uri, null);
            }
            case "file" -> {
                Path file = confine(uri, what);
                return new Batch.Target(file.toUri(), file);
            }
            case "store" -> {
                return new Batch.Target(uri, null, storePath(uri, what));
            }
            default -> throw ErrorMessage.URI_SCHEME_UNSUPPORTED.error(what, uri);
        }
    }

    /**
     * The store path a {@code store:} URI names ({@code store:/journals/ja.atom} gives
     * {@code /journals/ja.atom}), checked: the server has a store, {@code what} may be in it (code is
     * not), the path names a document, and an output names a resource document.
     */
    private String storePath(URI uri, String what) {
        if (!store) {
            throw ErrorMessage.NO_STORE_FOR_URI.error(what, uri);
        }
        if (CODE.contains(what)) {
            throw ErrorMessage.CODE_NOT_IN_STORE.error(what, uri);
        }
        String path = uri.getPath();
        boolean document = uri.getRawAuthority() == null && uri.getQuery() == null && uri.getFragment() == null
                && path != null && path.startsWith("/") && !path.endsWith("/") && !path.contains("//")
                && !path.contains("/./") && !path.contains("/../") && !path.endsWith("/.") && !path.endsWith("/..");
        if (!document) {
            throw ErrorMessage.NO_STORE_DOCUMENT_NAMED.error(what, uri);
        }
        if (OUTPUTS.contains(what) && ResourcePath.document(path) == null) {
            throw ErrorMessage.OUTPUT_NOT_RESOURCE.error(what, uri);
        }
        return path;
    }

    /** What is written: outputs must be resource documents, written through the store service. */
    private static final Set<String> OUTPUTS = Set.of("output", "xsl:result-document");
    /** What is compiled: never read from the store. */
    private static final Set<String> CODE = Set.of("stylesheet", "schematron", "module");

    /** The file a {@code file:} URI names, confined to the roots; the error says how to allow folders. */
    Path confine(URI fileUri, String what) {
        try {
            return roots.confine(fileUri, what);
        } catch (ArnoException e) {
            if (e.code() != ErrorCode.OUTSIDE_ROOTS || !roots.isEmpty()) throw e;
            throw ErrorMessage.NO_BATCH_ROOTS.error(what, fileUri);
        }
    }
}
