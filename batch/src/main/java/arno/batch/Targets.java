package arno.batch;

import arno.xml.ArnoException;
import arno.xml.ErrorCode;
import arno.xml.FileRoots;
import arno.xml.Outbound;
import java.net.URI;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Resolves the URIs a batch names (stylesheet, inputs, outputs, result documents) and checks
 * them against the service's one policy: files must lie under the {@link FileRoots}, URLs must
 * pass the {@link Outbound} policy, and nothing else is accepted. Immutable and thread-safe.
 */
final class Targets {
    private final FileRoots roots;
    private final Outbound outbound;

    Targets(FileRoots roots, Outbound outbound) {
        this.roots = roots;
        this.outbound = outbound;
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
                if (uri.getHost() == null) throw ErrorCode.UNSUPPORTED_URI.error(what + " URL " + uri + " names no host");
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
            default -> throw ErrorCode.UNSUPPORTED_URI.error(what + " " + uri
                    + ": only file (under the allowed folders), http and https URIs are supported");
        }
    }

    /** The file a {@code file:} URI names, confined to the roots; the error says how to allow folders. */
    Path confine(URI fileUri, String what) {
        try {
            return roots.confine(fileUri, what);
        } catch (ArnoException e) {
            if (e.code() != ErrorCode.OUTSIDE_ROOTS || !roots.isEmpty()) throw e;
            throw ErrorCode.OUTSIDE_ROOTS.error(what + " " + fileUri, ": the server allows batches no folder at all;"
                    + " name the folders batches may read and write in the server's batch roots (see batch/README.md)");
        }
    }
}
