package arno.store.atom;

import java.util.Locale;
import java.util.Map;

/**
 * The small table of media types and file extensions the service needs when no introspection
 * document names the extension of a variant (a media resource posted to a collection, a file
 * loaded from a folder). Deliberately short: what publishing content uses.
 */
final class MediaTypes {
    private MediaTypes() {
    }

    private static final Map<String, String> EXTENSION_OF = Map.ofEntries(
            Map.entry("application/xml", "xml"), Map.entry("text/xml", "xml"),
            Map.entry("application/xhtml+xml", "xhtml"), Map.entry("text/html", "html"),
            Map.entry("application/pdf", "pdf"), Map.entry("image/png", "png"), Map.entry("image/jpeg", "jpg"),
            Map.entry("image/gif", "gif"), Map.entry("image/webp", "webp"), Map.entry("image/tiff", "tif"),
            Map.entry("image/svg+xml", "svg"), Map.entry("application/mathml+xml", "mml"),
            Map.entry("text/plain", "txt"), Map.entry("text/css", "css"), Map.entry("application/json", "json"),
            Map.entry("application/zip", "zip"), Map.entry("application/epub+zip", "epub"),
            Map.entry("audio/mpeg", "mp3"), Map.entry("video/mp4", "mp4"), Map.entry("text/csv", "csv"),
            Map.entry("application/octet-stream", "bin"));

    private static final Map<String, String> TYPE_OF = Map.ofEntries(
            Map.entry("xml", "application/xml"), Map.entry("xhtml", "application/xhtml+xml"),
            Map.entry("html", "text/html"), Map.entry("htm", "text/html"), Map.entry("pdf", "application/pdf"),
            Map.entry("png", "image/png"), Map.entry("jpg", "image/jpeg"), Map.entry("jpeg", "image/jpeg"),
            Map.entry("gif", "image/gif"), Map.entry("webp", "image/webp"), Map.entry("tif", "image/tiff"),
            Map.entry("tiff", "image/tiff"), Map.entry("svg", "image/svg+xml"), Map.entry("mml", "application/mathml+xml"),
            Map.entry("txt", "text/plain"), Map.entry("css", "text/css"), Map.entry("json", "application/json"),
            Map.entry("zip", "application/zip"), Map.entry("epub", "application/epub+zip"), Map.entry("mp3", "audio/mpeg"),
            Map.entry("mp4", "video/mp4"), Map.entry("csv", "text/csv"), Map.entry("bin", "application/octet-stream"));

    /** The type without parameters, lower case: {@code "Image/PNG; q=1"} gives {@code "image/png"}. */
    static String essence(String mediaType) {
        if (mediaType == null) return "";
        int semi = mediaType.indexOf(';');
        return (semi >= 0 ? mediaType.substring(0, semi) : mediaType).strip().toLowerCase(Locale.ROOT);
    }

    /** The usual extension of a media type, or null. */
    static String extension(String mediaType) {
        return EXTENSION_OF.get(essence(mediaType));
    }

    /** The media type of an extension, or {@code application/octet-stream}. */
    static String ofExtension(String extension) {
        return TYPE_OF.getOrDefault(extension.toLowerCase(Locale.ROOT), "application/octet-stream");
    }
}
