package arno.server.config;

import arno.xml.ArnoException;
import arno.xml.ErrorMessage;
import arno.xml.Outbound;
import arno.xml.Where;
import arno.xml.XmlPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.xml.XMLConstants;
import javax.xml.transform.sax.SAXSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import javax.xml.validation.Validator;
import org.xml.sax.Attributes;
import org.xml.sax.InputSource;
import org.xml.sax.Locator;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.XMLReader;
import org.xml.sax.helpers.DefaultHandler;

/**
 * Reads an Arno configuration file ({@code --config FILE}, namespace {@code urn:arno:config},
 * schema {@code arno/schema/config.xsd}) over a base configuration: each setting the file gives
 * replaces the base's, the rest stay. Three passes over a small file, each parsing with
 * {@link XmlPolicy} (so nothing the file names is fetched): the first only parses, so that a
 * file that is not well-formed or is hostile is refused as such, whatever its elements; the
 * second validates it against the schema (a misspelt element or attribute, a port of 70000 or a
 * size of "16X" fails there with file, line and column, as a site.xml does); the third, knowing
 * the file is valid, copies the values.
 *
 * <p>Relative paths in the file are relative to the file's folder, so a configuration means the
 * same whatever folder {@code ./arno} runs in. The result is not validated as a whole: flags are
 * applied on top of it, and {@link Config.Builder#build()} checks what they make together.
 */
public final class ConfigFile {
    static final String NS = "urn:arno:config";
    /** Where a user finds what the file may say. */
    static final String SEE = "the schema is arno/schema/config.xsd; server/src/main/resources/arno/config-example.xml shows every setting";
    private static final Schema SCHEMA = schema();

    private ConfigFile() {}

    private static Schema schema() {
        URL xsd = ConfigFile.class.getResource("/arno/schema/config.xsd");
        try {
            SchemaFactory f = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
            return f.newSchema(xsd);
        } catch (SAXException e) {
            throw new IllegalStateException("config.xsd does not compile", e);
        }
    }

    /** {@code base} with the settings of {@code file}; an unreadable or invalid file is refused with its location. */
    public static Config read(Path file, Config base) {
        Path abs = file.toAbsolutePath().normalize();
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(abs);
        } catch (NoSuchFileException e) {
            throw ErrorMessage.CONFIG_FILE_MISSING.error(file);
        } catch (IOException e) {
            throw ErrorMessage.CONFIG_FILE_UNREADABLE.error(e, file, e.getMessage());
        }
        parse(abs, bytes, new DefaultHandler());
        validate(abs, bytes);
        Reader reader = new Reader(abs, base.toBuilder());
        parse(abs, bytes, reader);
        return reader.finish();
    }

    private static void validate(Path file, byte[] bytes) {
        Validator v = SCHEMA.newValidator();
        try {
            v.validate(source(file, bytes, XmlPolicy.DEFAULT.newReader()));
        } catch (SAXParseException e) {
            if (XmlPolicy.refusal(e) != null || !e.getMessage().startsWith("cvc-")) {
                // Not well-formed, or refused by the policy: the parser's own words and place.
                throw XmlPolicy.translate(e, "configuration file " + file);
            }
            Where where = Where.at(file.toString(), e.getLineNumber(), e.getColumnNumber());
            // Xerces names elements as '{"urn:arno:config":name}'; the namespace is the same for all.
            String message = e.getMessage().replace("\"" + NS + "\":", "").replace("'{", "'").replace("}'", "'");
            throw ErrorMessage.CONFIG_SCHEMA.error(e, where.document(), message, SEE).at(where);
        } catch (SAXException | IOException e) {
            throw XmlPolicy.translate(e, "configuration file " + file);
        }
    }

    private static void parse(Path file, byte[] bytes, DefaultHandler handler) {
        XMLReader reader = XmlPolicy.DEFAULT.newReader();
        reader.setContentHandler(handler);
        try {
            reader.parse(source(file, bytes, reader).getInputSource());
        } catch (SAXException e) {
            throw XmlPolicy.translate(e, "configuration file " + file);
        } catch (IOException e) {
            // The bytes are in memory: only their decoding can fail (an unknown or wrong encoding).
            throw ErrorMessage.CONFIG_ENCODING.error(e, file, e).at(Where.at(file.toString()));
        }
    }

    private static SAXSource source(Path file, byte[] bytes, XMLReader reader) {
        InputStream in = new java.io.ByteArrayInputStream(bytes);
        InputSource input = new InputSource(in);
        input.setSystemId(file.toUri().toString());
        return new SAXSource(reader, input);
    }

    /** The second pass: copies each value into the builder; the schema has already checked the syntax. */
    private static final class Reader extends DefaultHandler {
        private final Path file;
        private final Path folder;
        private final Config.Builder b;
        private Locator locator;
        private final StringBuilder text = new StringBuilder();
        private String parent = "";
        /** Lists the file replaces: cleared at the first item the file gives. */
        private final Set<String> replaced = new LinkedHashSet<>();
        // The outbound policy and the XML limits are records: collected, then made once.
        private Set<String> schemes;
        private List<String> outboundHosts;
        private boolean privateAddresses;
        private Duration timeout;
        private int redirects;
        private Where outboundAt;
        private long expansions, entityCharacters, depth, attributeCharacters;
        private Where xmlAt;

        Reader(Path file, Config.Builder b) {
            this.file = file;
            this.folder = file.getParent();
            this.b = b;
            Outbound.Policy o = b.outbound;
            schemes = new LinkedHashSet<>(o.schemes());
            outboundHosts = new ArrayList<>(o.hosts());
            privateAddresses = o.privateAddresses();
            timeout = o.timeout();
            redirects = o.maxRedirects();
            XmlPolicy.Limits l = b.xmlLimits;
            expansions = l.entityExpansions();
            entityCharacters = l.entityCharacters();
            depth = l.depth();
            attributeCharacters = l.attributeCharacters();
        }

        @Override
        public void setDocumentLocator(Locator locator) {
            this.locator = locator;
        }

        private Where here() {
            return locator == null ? Where.at(file.toString())
                    : Where.at(file.toString(), locator.getLineNumber(), locator.getColumnNumber());
        }

        @Override
        public void startElement(String uri, String local, String qName, Attributes atts) {
            text.setLength(0);
            if (!NS.equals(uri)) return; // the schema allows none; kept for safety
            try {
                switch (local) {
                    case "arno" -> {
                        String p = atts.getValue("production");
                        if (p != null) b.production = bool(p);
                    }
                    case "http" -> {
                        parent = local;
                        if (atts.getValue("bind") != null) b.bind = atts.getValue("bind").strip();
                        if (atts.getValue("port") != null) b.port = Integer.parseInt(atts.getValue("port").strip());
                        if (atts.getValue("compression") != null) b.compression = atts.getValue("compression").strip().equals("on");
                    }
                    case "proxies" -> {
                        String v = atts.getValue("trusted");
                        if (v != null) {
                            b.trustedProxies = new ArrayList<>();
                            for (String p : v.strip().split("\\s+")) if (!p.isEmpty()) b.trustedProxies.add(p);
                        }
                    }
                    case "log" -> {
                        String v;
                        if ((v = atts.getValue("level")) != null) {
                            b.logLevel = Config.LogLevel.valueOf(v.strip().toUpperCase(java.util.Locale.ROOT));
                        }
                        if ((v = atts.getValue("file")) != null) b.logFile = path(v.strip());
                        if ((v = atts.getValue("access")) != null) b.accessLog = path(v.strip());
                    }
                    case "metrics" -> {
                        String v;
                        if ((v = atts.getValue("enabled")) != null) b.metrics = bool(v);
                        if ((v = atts.getValue("allow")) != null) {
                            b.metricsAllow = new ArrayList<>();
                            for (String p : v.strip().split("\\s+")) if (!p.isEmpty()) b.metricsAllow.add(p);
                        }
                    }
                    case "pages" -> {
                        String v;
                        if ((v = atts.getValue("workers")) != null) b.workers = Integer.parseInt(v.strip());
                        if ((v = atts.getValue("queue")) != null) b.queue = Integer.parseInt(v.strip());
                        if ((v = atts.getValue("body-limit")) != null) b.bodyLimit = Config.size(v, "pages/@body-limit");
                        if ((v = atts.getValue("route-time-limit")) != null) {
                            b.routeTimeout = Config.duration(v, "pages/@route-time-limit");
                        }
                        if ((v = atts.getValue("source-cache")) != null) b.sourceCache = Config.size(v, "pages/@source-cache");
                        if ((v = atts.getValue("content-from")) != null) {
                            b.contentFrom = Config.ContentFrom.valueOf(v.strip().toUpperCase(java.util.Locale.ROOT));
                        }
                        if ((v = atts.getValue("page-caches")) != null) b.pageCaches = v.strip().equals("on");
                        if ((v = atts.getValue("page-cache-memory")) != null) {
                            b.pageCacheMemory = Config.size(v, "pages/@page-cache-memory");
                        }
                        if ((v = atts.getValue("body-min-rate")) != null) b.bodyMinRate = Config.size(v, "pages/@body-min-rate");
                        if ((v = atts.getValue("body-grace")) != null) b.bodyGrace = Config.duration(v, "pages/@body-grace");
                        if ((v = atts.getValue("body-time-limit")) != null) {
                            b.bodyTimeLimit = Config.duration(v, "pages/@body-time-limit");
                        }
                    }
                    case "store" -> {
                        String v = atts.getValue("map-size");
                        if (v != null) b.storeMapSize = Config.size(v, "store/@map-size");
                        if ((v = atts.getValue("change-retention")) != null) {
                            b.changeRetention = Config.duration(v, "store/@change-retention");
                        }
                        if ((v = atts.getValue("reads")) != null) {
                            b.storeReads = Config.StoreReads.valueOf(v.strip().toUpperCase(java.util.Locale.ROOT));
                        }
                        if ((v = atts.getValue("confirm-delete-depth")) != null) b.confirmDeleteDepth = Integer.parseInt(v.strip());
                        if ((v = atts.getValue("confirm-delete-documents")) != null) {
                            b.confirmDeleteDocuments = Long.parseLong(v.strip());
                        }
                    }
                    case "cluster" -> {
                        String v;
                        if ((v = atts.getValue("database")) != null) b.clusterDatabase = v.strip();
                        if ((v = atts.getValue("password-file")) != null) b.clusterPasswordFile = path(v.strip());
                        Config.Nodes n = b.clusterNodes;
                        b.clusterNodes = new Config.Nodes(
                                (v = atts.getValue("read-your-writes-wait")) != null
                                        ? Config.duration(v, "cluster/@read-your-writes-wait") : n.readYourWritesWait(),
                                (v = atts.getValue("max-lag-positions")) != null ? Long.parseLong(v.strip()) : n.maxLagPositions(),
                                (v = atts.getValue("max-lag")) != null ? Config.duration(v, "cluster/@max-lag") : n.maxLag(),
                                (v = atts.getValue("retain-positions")) != null ? Long.parseLong(v.strip()) : n.retainPositions(),
                                (v = atts.getValue("retain")) != null ? Config.duration(v, "cluster/@retain") : n.retain(),
                                (v = atts.getValue("heartbeat")) != null ? Config.duration(v, "cluster/@heartbeat") : n.heartbeat());
                        if ((v = atts.getValue("batch-lease")) != null) b.clusterBatchLease = Config.duration(v, "cluster/@batch-lease");
                    }
                    case "xml" -> {
                        xmlAt = here();
                        String v;
                        if ((v = atts.getValue("entity-expansions")) != null) expansions = Integer.parseInt(v.strip());
                        if ((v = atts.getValue("entity-characters")) != null) entityCharacters = Config.size(v, "xml/@entity-characters");
                        if ((v = atts.getValue("depth")) != null) depth = Integer.parseInt(v.strip());
                        if ((v = atts.getValue("attribute-characters")) != null) {
                            attributeCharacters = Config.size(v, "xml/@attribute-characters");
                        }
                    }
                    case "outbound" -> {
                        parent = local;
                        outboundAt = here();
                        String v;
                        if ((v = atts.getValue("private-addresses")) != null) privateAddresses = bool(v);
                        if ((v = atts.getValue("timeout")) != null) timeout = Config.duration(v, "outbound/@timeout");
                        if ((v = atts.getValue("redirects")) != null) redirects = Integer.parseInt(v.strip());
                    }
                    case "batch" -> {
                        parent = local;
                        String v;
                        if ((v = atts.getValue("workers")) != null) b.batchWorkers = Integer.parseInt(v.strip());
                        if ((v = atts.getValue("queue")) != null) b.batchQueue = Integer.parseInt(v.strip());
                        if ((v = atts.getValue("time-limit")) != null) b.batchTimeLimit = Config.duration(v, "batch/@time-limit");
                        if ((v = atts.getValue("min-share")) != null) b.batchMinShare = Config.share(v, "batch/@min-share");
                    }
                    default -> { }
                }
            } catch (ArnoException e) {
                throw located(e);
            }
        }

        @Override
        public void characters(char[] ch, int start, int length) {
            text.append(ch, start, length);
        }

        @Override
        public void endElement(String uri, String local, String qName) {
            if (!NS.equals(uri)) return;
            String v = text.toString().strip();
            text.setLength(0);
            switch (parent + "/" + local) {
                case "/data" -> b.data = path(v);
                case "/sites" -> b.sites = path(v);
                case "http/host" -> first("http/host", b.hosts).add(v);
                case "outbound/scheme" -> first("outbound/scheme", schemes).add(v);
                case "outbound/host" -> first("outbound/host", outboundHosts).add(v);
                case "batch/root" -> first("batch/root", b.batchRoots).add(path(v));
                case "http/http", "outbound/outbound", "batch/batch" -> parent = "";
                default -> { }
            }
        }

        private <T, C extends java.util.Collection<T>> C first(String list, C items) {
            if (replaced.add(list)) items.clear();
            return items;
        }

        private Path path(String v) {
            return folder.resolve(v).normalize();
        }

        private static boolean bool(String v) {
            String t = v.strip();
            return t.equals("true") || t.equals("1");
        }

        private ArnoException located(ArnoException e) {
            Where where = here();
            return ErrorMessage.CONFIG_SETTING_REFUSED.error(e, where.document(), e.getMessage()).at(where);
        }

        Config finish() {
            try {
                b.outbound = new Outbound.Policy(schemes, outboundHosts, privateAddresses, timeout, redirects);
            } catch (ArnoException e) {
                throw ErrorMessage.CONFIG_SETTING_REFUSED.error(e, outboundAt == null ? file.toString() : outboundAt.document(),
                        e.getMessage()).at(outboundAt);
            }
            if (attributeCharacters > Integer.MAX_VALUE) {
                Where at = xmlAt == null ? Where.at(file.toString()) : xmlAt;
                throw ErrorMessage.ATTRIBUTE_CHARACTERS.error(at.document(), Integer.MAX_VALUE, attributeCharacters).at(at);
            }
            try {
                b.xmlLimits = new XmlPolicy.Limits((int) Math.min(expansions, Integer.MAX_VALUE), entityCharacters,
                        (int) Math.min(depth, Integer.MAX_VALUE), (int) attributeCharacters);
            } catch (ArnoException e) {
                Where at = xmlAt == null ? Where.at(file.toString()) : xmlAt;
                throw ErrorMessage.CONFIG_SETTING_REFUSED.error(e, at.document(), e.getMessage()).at(at);
            }
            return b.unchecked();
        }
    }
}
