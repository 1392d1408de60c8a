package arno.server;

import arno.http.Conditional;
import arno.http.HeaderValues;
import java.io.IOException;
import org.apache.coyote.http11.Http11NioProtocol;
import org.apache.tomcat.util.http.MimeHeaders;

/**
 * Gzip for text responses, done by Tomcat's connector (its gzip output filter, after the servlet,
 * so asynchronous pages, the store API and the batch service are compressed alike, and a response
 * that already has a Content-Encoding, such as a page cache's stored gzip form, is left alone). The
 * connector decides per response: a compressible type ({@link #TYPES}; images, PDF and other
 * binaries are not), a client whose Accept-Encoding takes gzip, no known length under
 * {@link #MIN_SIZE}; it adds {@code Vary: accept-encoding} to every response it could have
 * compressed.
 *
 * <p>Strong ETags: Tomcat refuses to compress a response with a strong ETag, because the
 * gzipped bytes are a different representation and must not share the identity bytes' strong
 * validator (RFC 9110 8.8.1). That would leave the store API's entries and every page with
 * validators uncompressed, so, as Jetty's GzipHandler does, {@link Protocol} compresses them
 * with the ETag suffixed ({@code "v42"} becomes {@code "v42--gzip"}, {@link Conditional#gzipTag}),
 * and every servlet answers conditional requests through {@link Conditional}, which takes the
 * suffixed tag for the representation it was made from: a client that revalidates its gzipped
 * copy gets its 304, and a conditional PUT with the ETag of a gzipped GET succeeds, in the WAR's
 * container as here.
 *
 * <p>The level is {@link #LEVEL}, 1, where Tomcat's filter uses zlib's default, 6: on the demo's
 * full-text pages (49 KB) level 6 costs 752 µs of CPU for 79% saved, level 1 278 µs for 75%
 * ({@code perf/RESULTS.md}, "gzip"), and level 6 was more than half the CPU of building the page
 * again. Pages the page caches keep are compressed once, when stored, at the default level. Tomcat
 * has no setting for the level, so {@link Protocol} puts a {@link Leveled} filter in the place of
 * its gzip filter in each processor it makes; if a later Tomcat moves the field this relies on, the
 * server says so once and compresses at Tomcat's level.
 *
 * <p>Brotli is not offered: Tomcat's connector has gzip only and no way to add a coding, the one
 * maintained Java binding (brotli4j) is a native library per platform, and doing it in a servlet
 * response wrapper would have to handle asynchronous responses and validators by hand. A reverse
 * proxy in front can add it.
 */
final class Compression {
    /** Media types compressed (Tomcat matches them as prefixes of Content-Type). Not text/event-stream: it must flow. */
    static final String TYPES = String.join(",", "text/html", "text/xml", "text/plain", "text/css", "text/csv",
            "text/javascript", "application/javascript", "application/json", "application/ld+json", "application/xml",
            "application/xhtml+xml", "application/atom+xml", "application/atomsvc+xml", "application/atomcat+xml",
            "application/rss+xml", "application/xslt+xml", "application/mathml+xml", "image/svg+xml");
    /** Bodies of a known length below this are sent as they are: gzip's header and trailer would eat the gain. */
    static final int MIN_SIZE = 1024;
    /** The gzip level of every response the connector compresses (nginx's default too). */
    static final int LEVEL = 1;
    private Compression() {}

    /** HTTP/1.1 over NIO, compressing at {@link #LEVEL}, responses with strong ETags too (with the ETag suffixed). */
    public static final class Protocol extends Http11NioProtocol {
        private static final java.lang.reflect.Field OUTPUT_BUFFER = outputBufferField();

        private static java.lang.reflect.Field outputBufferField() {
            try {
                java.lang.reflect.Field f = org.apache.coyote.http11.Http11Processor.class.getDeclaredField("outputBuffer");
                f.setAccessible(true);
                return f;
            } catch (ReflectiveOperationException | RuntimeException e) {
                System.getLogger(Compression.class.getName()).log(System.Logger.Level.WARNING,
                        "gzip at Tomcat's own level (6), not " + LEVEL + ": this Tomcat's Http11Processor has no field outputBuffer (" + e + ")");
                return null;
            }
        }

        /** Tomcat's processor with its gzip filter replaced by one at {@link #LEVEL}. */
        @Override
        protected org.apache.coyote.Processor createProcessor() {
            org.apache.coyote.Processor p = super.createProcessor();
            if (OUTPUT_BUFFER != null && p instanceof org.apache.coyote.http11.Http11Processor h) {
                try {
                    // getFilters() is the buffer's own array, from which the processor takes the gzip filter per response
                    org.apache.coyote.http11.OutputFilter[] filters =
                            ((org.apache.coyote.http11.Http11OutputBuffer) OUTPUT_BUFFER.get(h)).getFilters();
                    for (int i = 0; i < filters.length; i++) {
                        if (filters[i].getClass() == org.apache.coyote.http11.filters.GzipOutputFilter.class) filters[i] = new Leveled();
                    }
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e); // setAccessible succeeded above
                }
            }
            return p;
        }

        @Override
        public boolean useCompression(org.apache.coyote.Request request, org.apache.coyote.Response response) {
            MimeHeaders headers = response.getMimeHeaders();
            String etag = headers.getHeader("ETag");
            // Most responses write no Vary of their own: then only Tomcat's may need its case mended.
            boolean ownVary = headers.findHeader("Vary", 0) >= 0;
            java.util.List<String> vary = ownVary ? java.util.Collections.list(headers.values("Vary")) : java.util.List.of();
            boolean strong = etag != null && !etag.trim().startsWith("W/");
            // Hide a strong ETag from Tomcat's check, then put it back, suffixed if the body is gzipped.
            if (strong) headers.removeHeader("ETag");
            boolean gzip = false;
            try {
                gzip = super.useCompression(request, response);
            } finally {
                if (strong) headers.addValue("ETag").setString(gzip ? Conditional.gzipTag(etag) : etag);
                if (ownVary || !mendedTomcatsVary(headers)) keepVary(headers, vary);
            }
            return gzip;
        }

        /**
         * For a response that wrote no Vary: writes Tomcat's lone {@code accept-encoding} as
         * {@link #keepVary} would, and says whether that was all there was to do (no Vary, or that
         * one): the common case, without the lists and parsing (6 µs a page).
         */
        private static boolean mendedTomcatsVary(MimeHeaders headers) {
            int i = headers.findHeader("Vary", 0);
            if (i < 0) return true;
            if (headers.findHeader("Vary", i + 1) >= 0 || !headers.getValue(i).toString().strip().equalsIgnoreCase("accept-encoding")) {
                return false;
            }
            headers.getValue(i).setString("Accept-Encoding");
            return true;
        }

        /**
         * Tomcat rewrites Vary into one lower-cased list when it adds accept-encoding; the page's
         * own Vary values are put back as the page wrote them, with Accept-Encoding after them.
         */
        private static void keepVary(MimeHeaders headers, java.util.List<String> before) {
            java.util.List<String> after = java.util.Collections.list(headers.values("Vary"));
            if (after.equals(before)) return;
            boolean added = HeaderValues.parse(after).stream().anyMatch(e -> e.is("accept-encoding"));
            headers.removeHeader("Vary");
            for (String v : before) headers.addValue("Vary").setString(v);
            boolean had = HeaderValues.parse(before).stream().anyMatch(e -> e.is("accept-encoding") || e.is("*"));
            if (added && !had) headers.addValue("Vary").setString("Accept-Encoding");
        }
    }

    /** Tomcat's gzip filter, its stream made at {@link #LEVEL} before Tomcat would make one at its default. */
    static final class Leveled extends org.apache.coyote.http11.filters.GzipOutputFilter {
        @Override
        public int doWrite(java.nio.ByteBuffer chunk) throws IOException {
            if (compressionStream == null) {
                compressionStream = new java.util.zip.GZIPOutputStream(fakeOutputStream, true) {
                    {
                        def.setLevel(LEVEL);
                    }
                };
            }
            return super.doWrite(chunk);
        }
    }
}
