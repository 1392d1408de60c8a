package arno.pipeline;

import arno.cache.ArcCache;
import arno.cache.Stats;
import arno.cache.Ticker;
import arno.xml.ArnoException;
import arno.xml.ErrorMessage;
import arno.xml.Outbound;
import arno.xml.XmlPolicy;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import net.sf.saxon.Configuration;
import net.sf.saxon.om.TreeInfo;
import net.sf.saxon.trans.XPathException;

/**
 * One site's external sources: documents that {@code doc()} reads from http and https URIs,
 * fetched through the one {@link Outbound} policy, parsed once by the one {@link XmlPolicy} and
 * kept in memory (ARC, bounded in items and bytes), with the server's validators (ETag,
 * Last-Modified). The modelled platform kept them 30 minutes or 1,000 items.
 *
 * <p>A kept source is used without asking its server for the site's {@code revalidate}
 * interval; after it, the next use asks with a conditional GET (If-None-Match, If-Modified-Since):
 * 304 keeps the parsed tree for another interval, 200 replaces it. The same table answers the
 * page caches' checks of their {@value Reads#URI} dependencies ({@link #known}, {@link #current}),
 * so a page is as fresh as the sources it was built from, and a page check that finds a source
 * changed leaves its new tree here for the rebuild.
 *
 * <p>A source's version, which pages record: {@code "etag E"} when the server sends an ETag, else
 * {@code "modified DATE"} for a Last-Modified, else {@code "sha256 H"} of the bytes (then a
 * revalidation is a whole GET, compared by content). Parsed trees are TinyTrees of the server's
 * one Saxon configuration: immutable once built, shared by every request and thread.
 *
 * <p>Thread-safe. Two requests that find a source due may both ask its server; the later answer wins.
 */
final class Sources {
    /**
     * A kept source. {@code tree} is null when only its version is known (a page's check was
     * answered 304 before any request here parsed it). {@code checkedAt} is ticker time;
     * {@code weight} about three times the XML.
     */
    record Source(TreeInfo tree, String version, String etag, String lastModified, long checkedAt, long weight) {}

    private final ArcCache<String, Source> entries;
    private final Outbound outbound;
    private final XmlPolicy policy;
    private final Configuration config;
    private final long intervalNanos;
    private final Ticker ticker;
    private final Stats.Counting stats;
    /** Whole documents fetched, and conditional GETs answered 304 (the kept copy confirmed). */
    private final java.util.concurrent.atomic.LongAdder fetched = new java.util.concurrent.atomic.LongAdder(),
            notModified = new java.util.concurrent.atomic.LongAdder();

    Sources(CachePolicy.Sources p, Outbound outbound, XmlPolicy policy, Configuration config, Ticker ticker) {
        this.stats = Stats.counting();
        this.entries = ArcCache.<String, Source>builder(p.items()).maximumWeight(p.memory(), Source::weight)
                .stats(stats).build();
        this.outbound = outbound;
        this.policy = policy;
        this.config = config;
        this.intervalNanos = p.revalidate().toNanos();
        this.ticker = ticker;
    }

    /**
     * The parsed document at {@code url} for a request: kept and checked less than the interval
     * ago, or asked for now (conditionally when kept). Records it, with its version, in {@code reads}.
     */
    TreeInfo tree(String url, Reads reads) throws XPathException {
        Source s = entries.get(url);
        if (s != null && s.tree == null) {
            s = refresh(url, null, null); // only its version was known (a page check's 304): fetch it whole
        } else if (s == null || ticker.read() - s.checkedAt >= intervalNanos) {
            s = refresh(url, s, null);
        }
        if (reads != null) reads.uri(url, s.version);
        return s.tree;
    }

    /** The version of {@code url} when it was checked less than the interval ago, else null (a check is due). */
    String known(String url) {
        Source s = entries.peek(url);
        return s != null && ticker.read() - s.checkedAt < intervalNanos ? s.version : null;
    }

    /**
     * The version of {@code url} now, asking its server (conditionally, with the kept validators
     * or those in {@code recorded}, the version a page recorded). For the page caches' checks, on
     * their validation threads. A failure to fetch or parse throws: the page counts as stale.
     */
    String current(String url, String recorded) throws XPathException {
        Source s = entries.peek(url);
        if (s != null && ticker.read() - s.checkedAt < intervalNanos) return s.version;
        return refresh(url, s, recorded).version;
    }

    private Source refresh(String url, Source kept, String recorded) throws XPathException {
        String etag = kept != null ? kept.etag : recorded != null && recorded.startsWith("etag ") ? recorded.substring(5) : null;
        String modified = kept != null ? kept.lastModified
                : recorded != null && recorded.startsWith("modified ") ? recorded.substring(9) : null;
        Outbound.Fetched f;
        try {
            f = outbound.fetch(URI.create(url), "document", etag, etag == null ? modified : null);
        } catch (ArnoException e) {
            throw arno.xml.Access.refusal(e, "FODC0002");
        } catch (IllegalArgumentException e) {
            throw arno.xml.Access.refusal(ErrorMessage.DOCUMENT_NOT_URI.error(e, url), "FODC0002");
        }
        long now = ticker.read();
        if (f.notModified()) {
            if (kept == null) {
                // The page's copy is current, and this table had none: remember the version (not a tree) for the interval.
                Source known = new Source(null, recorded, etag, modified, now, 256);
                entries.put(url, known);
                notModified.increment();
                return known;
            }
            Source again = new Source(kept.tree, kept.version, kept.etag, kept.lastModified, now, kept.weight);
            entries.put(url, again);
            notModified.increment();
            return again;
        }
        TreeInfo tree;
        try {
            tree = config.buildDocumentTree(policy.source(new ByteArrayInputStream(f.body()), url));
        } catch (XPathException e) {
            throw arno.xml.Access.refusal(XmlPolicy.translate(e, url), "FODC0002");
        }
        String version = f.etag() != null ? "etag " + f.etag()
                : f.lastModified() != null ? "modified " + f.lastModified() : "sha256 " + sha256(f.body());
        fetched.increment();
        Source fresh = new Source(tree, version, f.etag(), f.lastModified(), now, 3L * f.body().length + 1024);
        entries.put(url, fresh);
        return fresh;
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes), 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java has SHA-256", e);
        }
    }

    /** Lookups that found a kept source (due or not), lookups that found none, and evictions. */
    Stats.Counting stats() {
        return stats;
    }

    long fetched() {
        return fetched.sum();
    }

    long notModified() {
        return notModified.sum();
    }

    int size() {
        return entries.size();
    }

    long weight() {
        return entries.weight();
    }

    double target() {
        return entries.target();
    }

    void clear() {
        entries.clear();
    }
}
