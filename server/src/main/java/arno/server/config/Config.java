package arno.server.config;

import arno.batch.BatchOptions;
import arno.pipeline.ArnoServlet;
import arno.pipeline.BodyRate;
import arno.pipeline.PipelineConfig;
import arno.store.StoreOptions;
import arno.store.http.DeleteGuard;
import arno.xml.ErrorCode;
import arno.xml.ErrorMessage;
import arno.xml.Outbound;
import arno.xml.Where;
import arno.xml.XmlPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The one configuration of an Arno server and its commands: every setting, typed, with its
 * default in {@link #defaults(Path)} and nowhere else. It is built in three layers, later ones
 * winning: the defaults, an optional configuration file ({@code --config FILE}, schema
 * {@code arno/schema/config.xsd}, read by {@link ConfigFile}), and command-line flags. Whatever
 * the layers, {@link Builder#build()} checks every value before anything is generated, opened or
 * started, and refuses a wrong one with a message naming it and where it came from.
 *
 * <p>One meaning of the data folder for every command: {@code DATA/content} (content files),
 * {@code DATA/store} (the store), {@code DATA/batch} (batch jobs and accounts), {@code DATA/cache}
 * (the page caches' disk tiers).
 *
 * @param home          the installation: its {@code sites/}, and in a checkout the shared stylesheets' folders
 * @param data          the data folder
 * @param sites         the folder of sites (one sub-folder with a site.xml each)
 * @param production    no reloading, no error details, no debug routes
 * @param bind          address to listen on
 * @param port          port to listen on (0: any free one)
 * @param hosts         host names the server answers as: a URL it makes (a redirect's or a batch job's
 *                      Location) names the request's host only when it is one of these; otherwise a
 *                      redirect names the address the request came in on and the batch service answers
 *                      relative URLs
 * @param workers       pages built at once
 * @param queue         requests that may wait for a worker
 * @param bodyLimit     largest request body, bytes
 * @param routeTimeout  a route's time limit unless its site.xml sets one
 * @param sourceCache   bytes of parsed content files kept between requests
 * @param pageCaches    whether the routes that say so in their site.xml cache their pages (on by
 *                      default; off to see every page built afresh, or to measure that)
 * @param storeMapSize  largest size the store may grow to, bytes
 * @param contentFrom   where the sites' {@code content:} URIs read: the store (the default; the demo is
 *                      loaded into it on a first run) or the content folder's files
 * @param changeRetention how long the store's change feed keeps a change (zero: for ever); a cache
 *                      or a follower that falls further behind must resynchronise
 * @param storeReads    who may read through the store API at {@code /store/}: anyone, or accounts
 *                      with the read role (writes always need the write role)
 * @param xmlLimits     the XML security policy's limits
 * @param outbound      which URLs the server may fetch on a user's behalf
 * @param batchRoots    folders batch jobs may read and write (none by default: never the data folder)
 * @param batchWorkers  transformations run at once
 * @param batchQueue    batch jobs that may wait
 * @param trustedProxies the proxies whose X-Forwarded-For, -Proto, -Host and -Port headers are
 *                      believed: IP addresses and CIDR blocks ({@code 10.0.0.0/8}, {@code 192.168.1.5},
 *                      {@code fd00::/8}); none by default, so a client cannot claim another address
 * @param compression   whether text responses are gzipped for clients that accept it
 * @param logLevel      the least important of Arno's log lines that is written
 * @param logFile       where log lines go (Arno's and Tomcat's), or null for standard error
 * @param accessLog     the access log file, or null for none
 * @param metrics       whether {@code /_arno/metrics} answers (Prometheus text; on by default)
 * @param metricsAllow  the addresses and CIDR blocks {@code /_arno/metrics} answers besides this machine
 *                      (and accounts with the admin role); null for the default, the trusted proxies
 * @param bodyRate      how fast a request body must arrive (a least rate after a grace, and a time
 *                      limit); a slower one is refused with 408 before any worker or servlet waits on it
 * @param batchTimeLimit a batch transformation's time limit unless its batch sets one
 * @param batchMinShare the least share of its time a batch worker keeps while page requests wait for the
 *                      server's workers (above 0, at most 1; 1: batches never give way to pages)
 * @param storeDeletes  which deletes through the store API need the admin role and an explicit
 *                      confirmation: of an entry at a depth or above, or of more documents than a number
 * @param cluster       the cluster's database (cluster mode), or null: a single node, no database
 * @param pageCacheMemory bytes of pages every site's page cache keeps in memory together (one ARC; a
 *                      site's {@code memory} in its site.xml is its cap within it); default a quarter of
 *                      the heap; 0: each site its own memory tier, their sum unbounded (to compare)
 */
public record Config(Path home, Path data, Path sites, boolean production, String bind, int port, List<String> hosts,
                     int workers, int queue, long bodyLimit, Duration routeTimeout, long sourceCache, boolean pageCaches,
                     long storeMapSize,
                     ContentFrom contentFrom, Duration changeRetention, StoreReads storeReads, XmlPolicy.Limits xmlLimits, Outbound.Policy outbound, List<Path> batchRoots, int batchWorkers,
                     int batchQueue, List<String> trustedProxies, boolean compression, LogLevel logLevel, Path logFile,
                     Path accessLog, boolean metrics, List<String> metricsAllow, BodyRate bodyRate,
                     Duration batchTimeLimit, double batchMinShare, DeleteGuard storeDeletes, Cluster cluster,
                     long pageCacheMemory) {

    /**
     * Cluster mode: the PostgreSQL database the nodes share ({@code jdbc:postgresql://HOST[:PORT]/DB?user=…},
     * never with a password) and where its password is read from: a file, or when null the
     * environment variable {@code ARNO_CLUSTER_PASSWORD} (or none, for a database that asks none);
     * {@code batchLease}: how long a node's claim of a batch job holds unrenewed, the longest a dead
     * node's job waits before another node resumes it ({@code --cluster-batch-lease}, default 30 s).
     */
    public record Cluster(String database, Path passwordFile, Nodes nodes, Duration batchLease) {
        /** The environment variable a password is read from when no file names it. */
        public static final String PASSWORD_VARIABLE = "ARNO_CLUSTER_PASSWORD";
        /** A batch job's lease unless set: a node renews each second, so only a pause this long loses it. */
        public static final Duration DEFAULT_BATCH_LEASE = Duration.ofSeconds(30);

        /** With the default {@link Nodes} settings and batch lease. */
        public Cluster(String database, Path passwordFile) {
            this(database, passwordFile, Nodes.DEFAULTS, DEFAULT_BATCH_LEASE);
        }
    }

    /**
     * How a cluster's nodes follow the log ({@code <cluster>}'s attributes, issue 23 items 5 to 7).
     *
     * @param readYourWritesWait how long a request naming a position waits for its node to apply it, then 503
     *                           ({@code read-your-writes-wait}, 2 s)
     * @param maxLagPositions    a node further behind the log's head than this is not ready ({@code max-lag-positions}, 1000)
     * @param maxLag             a node whose oldest unapplied commit is older than this is not ready ({@code max-lag}, 10 s)
     * @param retainPositions    the log keeps at least its last this many commits ({@code retain-positions}, 100000)
     * @param retain             and every commit younger than this ({@code retain}, 7 d); a node older than what is kept resynchronises
     * @param heartbeat          how often a node records its position in {@code arno.nodes}, checks its copy against
     *                           the log and prunes the log ({@code heartbeat}, 5 s)
     */
    public record Nodes(Duration readYourWritesWait, long maxLagPositions, Duration maxLag, long retainPositions, Duration retain,
                        Duration heartbeat) {
        public static final Nodes DEFAULTS = new Nodes(Duration.ofSeconds(2), 1000, Duration.ofSeconds(10), 100_000,
                Duration.ofDays(7), Duration.ofSeconds(5));
    }

    /**
     * How much is logged. Each level names the {@link System.Logger.Level} and the
     * java.util.logging level it lets through, from the most to the least important.
     */
    public enum LogLevel {
        ERROR(java.util.logging.Level.SEVERE), WARNING(java.util.logging.Level.WARNING), INFO(java.util.logging.Level.INFO),
        DEBUG(java.util.logging.Level.FINE), TRACE(java.util.logging.Level.FINEST);

        private final java.util.logging.Level jul;

        LogLevel(java.util.logging.Level jul) {
            this.jul = jul;
        }

        /** The java.util.logging level that System.Logger's level of the same name maps to. */
        public java.util.logging.Level jul() {
            return jul;
        }
    }

    /** Where the sites' content comes from. */
    public enum ContentFrom { STORE, FILES }

    /** Who may read through the store API. */
    public enum StoreReads { PUBLIC, ACCOUNTS }

    public Config {
        hosts = List.copyOf(hosts);
        batchRoots = List.copyOf(batchRoots);
        trustedProxies = List.copyOf(trustedProxies);
        metricsAllow = metricsAllow == null ? null : List.copyOf(metricsAllow);
    }

    /**
     * Every default, gathered in one place. A value that a module also needs on its own (a
     * pipeline compiled in a test, the WAR, a store opened by a tool) is that module's constant,
     * with the reason for its value beside it; this is where they meet. {@code home} is the
     * installation (or checkout) folder.
     */
    public static Config defaults(Path home) {
        return new Config(home, home.resolve("data"), home.resolve("sites"), false, "127.0.0.1", 8080, List.of(),
                ArnoServlet.DEFAULT_WORKERS, ArnoServlet.DEFAULT_QUEUE, PipelineConfig.DEFAULT_BODY_LIMIT,
                PipelineConfig.DEFAULT_TIMEOUT, PipelineConfig.DEFAULT_SOURCE_CACHE, true, StoreOptions.DEFAULT_MAP_SIZE,
                ContentFrom.STORE, StoreOptions.DEFAULT_CHANGE_RETENTION, StoreReads.PUBLIC, XmlPolicy.Limits.DEFAULT, Outbound.Policy.DEFAULT, List.of(), BatchOptions.DEFAULT_WORKERS,
                BatchOptions.DEFAULT_QUEUE, List.of(), true, LogLevel.INFO, null, null, true, null, BodyRate.DEFAULT,
                BatchOptions.DEFAULT_TIME_LIMIT, BatchOptions.DEFAULT_MIN_SHARE, DeleteGuard.DEFAULT, null,
                PipelineConfig.DEFAULT_PAGE_CACHE_MEMORY);
    }

    public Path content() {
        return data.resolve("content");
    }

    public Path store() {
        return data.resolve("store");
    }

    public Path batchData() {
        return data.resolve("batch");
    }

    /** The page caches' disk tiers, one folder per site: {@code DATA/cache/SITE}. */
    public Path cache() {
        return data.resolve("cache");
    }

    /** The one accounts file of the store API and the batch service: {@code DATA/batch/users}. */
    public Path accounts() {
        return batchData().resolve("users");
    }

    /** Who may read {@code /_arno/metrics} besides this machine: {@link #metricsAllow}, or the trusted proxies. */
    public List<String> metricsAddresses() {
        return metricsAllow != null ? metricsAllow : trustedProxies;
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Settings changed layer by layer; {@link #build()} validates the result as a whole. */
    public static final class Builder {
        public Path home, data, sites;
        public boolean production;
        public String bind;
        public int port;
        public List<String> hosts;
        public int workers, queue;
        public long bodyLimit;
        public Duration routeTimeout;
        public long sourceCache, storeMapSize;
        /** Bytes of pages all sites keep in memory together ({@code pages/@page-cache-memory}); 0: each site its own. */
        public long pageCacheMemory;
        public boolean pageCaches;
        public ContentFrom contentFrom;
        public Duration changeRetention;
        public StoreReads storeReads;
        public XmlPolicy.Limits xmlLimits;
        public Outbound.Policy outbound;
        public List<Path> batchRoots;
        public int batchWorkers, batchQueue;
        public List<String> trustedProxies;
        public boolean compression;
        public LogLevel logLevel;
        /** Null: standard error. */
        public Path logFile;
        /** Null: no access log. */
        public Path accessLog;
        public boolean metrics;
        /** Null: the trusted proxies. */
        public List<String> metricsAllow;
        /** The least rate a body must keep after its grace ({@code pages/@body-min-rate}), bytes a second; 0: none. */
        public long bodyMinRate;
        /** How long a body may arrive at any rate ({@code pages/@body-grace}). */
        public Duration bodyGrace;
        /** The longest a body may take ({@code pages/@body-time-limit}). */
        public Duration bodyTimeLimit;
        public Duration batchTimeLimit;
        /** The least share of a batch worker's time while pages wait ({@code batch/@min-share}); 1: never give way. */
        public double batchMinShare;
        /** Deletes of entries at this depth or above need confirmation ({@code store/@confirm-delete-depth}). */
        public int confirmDeleteDepth;
        /** Deletes of more documents than this need confirmation ({@code store/@confirm-delete-documents}). */
        public long confirmDeleteDocuments;
        /** The cluster's database URL ({@code --cluster}, {@code cluster/@database}); null: a single node. */
        public String clusterDatabase;
        /** The file holding the cluster database's password ({@code --cluster-password-file}, {@code cluster/@password-file}). */
        public Path clusterPasswordFile;
        /** The cluster's node settings ({@code cluster/@read-your-writes-wait}, {@code @max-lag-positions}, …). */
        public Nodes clusterNodes = Nodes.DEFAULTS;
        /** A batch job's lease in cluster mode ({@code --cluster-batch-lease}, {@code cluster/@batch-lease}); null: the default. */
        public Duration clusterBatchLease;

        Builder(Config c) {
            home = c.home; data = c.data; sites = c.sites; production = c.production; bind = c.bind; port = c.port;
            hosts = new ArrayList<>(c.hosts); workers = c.workers; queue = c.queue; bodyLimit = c.bodyLimit;
            routeTimeout = c.routeTimeout; sourceCache = c.sourceCache; pageCaches = c.pageCaches; storeMapSize = c.storeMapSize;
            pageCacheMemory = c.pageCacheMemory;
            contentFrom = c.contentFrom; changeRetention = c.changeRetention; storeReads = c.storeReads;
            xmlLimits = c.xmlLimits; outbound = c.outbound; batchRoots = new ArrayList<>(c.batchRoots);
            batchWorkers = c.batchWorkers; batchQueue = c.batchQueue;
            trustedProxies = new ArrayList<>(c.trustedProxies); compression = c.compression; logLevel = c.logLevel;
            logFile = c.logFile; accessLog = c.accessLog;
            metrics = c.metrics; metricsAllow = c.metricsAllow == null ? null : new ArrayList<>(c.metricsAllow);
            bodyMinRate = c.bodyRate.minBytesPerSecond(); bodyGrace = c.bodyRate.grace(); bodyTimeLimit = c.bodyRate.timeLimit();
            batchTimeLimit = c.batchTimeLimit;
            batchMinShare = c.batchMinShare;
            confirmDeleteDepth = c.storeDeletes.depth(); confirmDeleteDocuments = c.storeDeletes.documents();
            if (c.cluster != null) {
                clusterDatabase = c.cluster.database();
                clusterPasswordFile = c.cluster.passwordFile();
                clusterNodes = c.cluster.nodes();
                clusterBatchLease = c.cluster.batchLease();
            }
        }

        /**
         * The configuration, or {@link ErrorCode#BAD_CONFIGURATION} naming the first wrong setting.
         * Checks values only; whether folders exist is checked by whoever needs them
         * ({@link #requireFolder}), since {@code store check} and {@code serve} need different ones.
         */
        public Config build() {
            need(port >= 0 && port <= 65535, ErrorMessage.PORT_RANGE, port);
            need(bind != null && !bind.isBlank(), ErrorMessage.BIND_EMPTY);
            need(isAddress(bind), ErrorMessage.BIND_UNRESOLVED, bind);
            for (String h : hosts) {
                need(h != null && h.matches("[A-Za-z0-9.\\-]+(:[0-9]{1,5})?"), ErrorMessage.HOST_NOT_NAME, h);
            }
            need(workers >= 1, ErrorMessage.WORKERS, workers);
            need(queue >= 1, ErrorMessage.QUEUE, queue);
            need(bodyLimit > 0, ErrorMessage.BODY_LIMIT, bodyLimit);
            need(routeTimeout != null && !routeTimeout.isNegative() && !routeTimeout.isZero(), ErrorMessage.ROUTE_TIME_LIMIT,
                    routeTimeout);
            need(sourceCache >= 0, ErrorMessage.SOURCE_CACHE_NEGATIVE, sourceCache);
            need(pageCacheMemory >= 0, ErrorMessage.PAGE_CACHE_MEMORY_NEGATIVE, pageCacheMemory);
            need(storeMapSize >= 1L << 20, ErrorMessage.MAP_SIZE_SETTING, storeMapSize);
            need(contentFrom != null, ErrorMessage.CONTENT_FROM);
            need(changeRetention != null && !changeRetention.isNegative(), ErrorMessage.CHANGE_RETENTION_NEGATIVE, changeRetention);
            need(storeReads != null, ErrorMessage.STORE_READS);
            need(batchWorkers >= 1, ErrorMessage.BATCH_WORKERS, batchWorkers);
            need(batchQueue >= 1, ErrorMessage.BATCH_QUEUE, batchQueue);
            need(bodyMinRate >= 0, ErrorMessage.BODY_RATE_NEGATIVE, bodyMinRate);
            need(bodyGrace != null && !bodyGrace.isNegative(), ErrorMessage.BODY_GRACE_SETTING, bodyGrace);
            need(bodyTimeLimit != null && !bodyTimeLimit.isNegative() && !bodyTimeLimit.isZero(), ErrorMessage.BODY_TIME_LIMIT,
                    bodyTimeLimit);
            need(batchTimeLimit != null && !batchTimeLimit.isNegative() && !batchTimeLimit.isZero(),
                    ErrorMessage.BATCH_TIME_LIMIT_SETTING, batchTimeLimit);
            need(batchMinShare > 0 && batchMinShare <= 1, ErrorMessage.BATCH_SHARE, batchMinShare);
            need(confirmDeleteDepth >= 0, ErrorMessage.CONFIRM_DEPTH, confirmDeleteDepth);
            need(confirmDeleteDocuments >= 0, ErrorMessage.CONFIRM_DOCUMENTS, confirmDeleteDocuments);
            for (String p : trustedProxies) checkProxy(p);
            if (clusterBatchLease != null) {
                need(clusterBatchLease.toMillis() >= 2_000, ErrorMessage.BATCH_OPTION, "--cluster-batch-lease", "at least 2s",
                        clusterBatchLease);
            }
            Cluster cluster = cluster(clusterDatabase, clusterPasswordFile, clusterNodes,
                    clusterBatchLease == null ? Cluster.DEFAULT_BATCH_LEASE : clusterBatchLease);
            need(cluster == null || contentFrom == ContentFrom.STORE, ErrorMessage.CLUSTER_FILES);
            if (metricsAllow != null) for (String p : metricsAllow) checkAddress(p, "metrics address");
            need(logLevel != null, ErrorMessage.LOG_LEVEL);
            need(logFile == null || !Files.isDirectory(logFile), ErrorMessage.LOG_FILE_FOLDER, logFile);
            need(accessLog == null || !Files.isDirectory(accessLog), ErrorMessage.ACCESS_LOG_FOLDER, accessLog);
            need(logFile == null || accessLog == null || !logFile.toAbsolutePath().normalize().equals(accessLog.toAbsolutePath().normalize()),
                    ErrorMessage.LOGS_SAME_FILE, logFile);
            Path d = data.toAbsolutePath().normalize();
            Path realData = real(d);
            for (Path root : batchRoots) {
                // Nothing of the data folder (store, accounts, content the sites serve) may be a batch
                // job's to read or write, whichever way round they nest, links followed.
                Path r = root.toAbsolutePath().normalize();
                Path realRoot = real(r);
                need(!d.startsWith(r) && !r.startsWith(d) && !realData.startsWith(realRoot) && !realRoot.startsWith(realData),
                        ErrorMessage.BATCH_ROOT_EXPOSES_DATA, root, data);
            }
            return new Config(home.toAbsolutePath().normalize(), d, sites.toAbsolutePath().normalize(), production, bind,
                    port, hosts, workers, queue, bodyLimit, routeTimeout, sourceCache, pageCaches, storeMapSize, contentFrom,
                    changeRetention, storeReads, xmlLimits, outbound, batchRoots.stream().map(p -> p.toAbsolutePath().normalize()).toList(), batchWorkers, batchQueue,
                    trustedProxies.stream().map(String::strip).toList(), compression, logLevel, absolute(logFile), absolute(accessLog),
                    metrics, metricsAllow == null ? null : metricsAllow.stream().map(String::strip).toList(),
                    new BodyRate(bodyMinRate, bodyGrace, bodyTimeLimit), batchTimeLimit, batchMinShare,
                    new DeleteGuard(confirmDeleteDepth, confirmDeleteDocuments), cluster, pageCacheMemory);
        }

        /**
         * The cluster's settings checked: a PostgreSQL URL ({@code postgresql://} taken as
         * {@code jdbc:postgresql://}) with a host and a database and no password in it; null
         * without a database.
         */
        private static Cluster cluster(String database, Path passwordFile, Nodes nodes, Duration batchLease) {
            need(positive(nodes.readYourWritesWait()), ErrorMessage.CLUSTER_SETTING, "read-your-writes-wait", "a positive time",
                    nodes.readYourWritesWait());
            need(nodes.maxLagPositions() >= 1, ErrorMessage.CLUSTER_SETTING, "max-lag-positions", "at least 1", nodes.maxLagPositions());
            need(positive(nodes.maxLag()), ErrorMessage.CLUSTER_SETTING, "max-lag", "a positive time", nodes.maxLag());
            need(nodes.retainPositions() >= 1, ErrorMessage.CLUSTER_SETTING, "retain-positions", "at least 1", nodes.retainPositions());
            need(nodes.retain() != null && !nodes.retain().isNegative(), ErrorMessage.CLUSTER_SETTING, "retain",
                    "a time (0: by count only)", nodes.retain());
            need(positive(nodes.heartbeat()), ErrorMessage.CLUSTER_SETTING, "heartbeat", "a positive time", nodes.heartbeat());
            if (database == null) {
                need(passwordFile == null, ErrorMessage.CLUSTER_PASSWORD_FILE_ALONE, passwordFile);
                return null;
            }
            String url = database.strip();
            if (url.startsWith("postgresql://")) url = "jdbc:" + url;
            need(url.matches("jdbc:postgresql://[^/?#\\s@]+/[^/?#\\s]+(\\?[^#\\s]*)?"), ErrorMessage.CLUSTER_URL, database);
            int q = url.indexOf('?');
            if (q >= 0) {
                for (String p : url.substring(q + 1).split("&")) {
                    need(!p.toLowerCase(java.util.Locale.ROOT).startsWith("password="), ErrorMessage.CLUSTER_URL_PASSWORD);
                }
            }
            return new Cluster(url, absolute(passwordFile), nodes, batchLease);
        }

        private static boolean positive(Duration d) {
            return d != null && !d.isNegative() && !d.isZero();
        }

        private static Path absolute(Path p) {
            return p == null ? null : p.toAbsolutePath().normalize();
        }

        /**
         * Refuses {@code entry} unless it is an IP address literal, alone or with a prefix length
         * whose host bits are zero (10.0.0.0/8, not 10.1.0.0/8, which is probably a mistake).
         * Host names are refused: trust must not depend on what DNS answers.
         */
        private static void checkProxy(String entry) {
            checkAddress(entry, "trusted proxy");
        }

        private static void checkAddress(String entry, String what) {
            String e = entry == null ? "" : entry.strip();
            int slash = e.indexOf('/');
            String address = slash < 0 ? e : e.substring(0, slash);
            // A literal, never a name: trust must not depend on what DNS answers.
            java.net.InetAddress literal = arno.xml.IpAddress.parse(address);
            need(literal != null && address.indexOf('%') < 0, ErrorMessage.NOT_AN_ADDRESS, what, entry);
            byte[] bytes = literal.getAddress();
            if (slash < 0) return;
            int bits;
            try {
                bits = Integer.parseInt(e.substring(slash + 1));
            } catch (NumberFormatException ex) {
                throw ErrorMessage.NOT_AN_ADDRESS.error(what, entry);
            }
            need(bits >= 0 && bits <= bytes.length * 8, ErrorMessage.PREFIX_LENGTH, what, entry, bytes.length * 8);
            java.math.BigInteger value = new java.math.BigInteger(1, bytes);
            java.math.BigInteger hostBits = java.math.BigInteger.ONE.shiftLeft(bytes.length * 8 - bits).subtract(java.math.BigInteger.ONE);
            if (!value.and(hostBits).equals(java.math.BigInteger.ZERO)) {
                byte[] network = value.andNot(hostBits).toByteArray();
                byte[] fixed = new byte[bytes.length];
                System.arraycopy(network, Math.max(0, network.length - fixed.length), fixed, Math.max(0, fixed.length - network.length),
                        Math.min(network.length, fixed.length));
                String suggestion;
                try {
                    suggestion = java.net.InetAddress.getByAddress(fixed).getHostAddress() + "/" + bits;
                } catch (java.net.UnknownHostException ex) {
                    throw new IllegalStateException(ex);
                }
                throw ErrorMessage.HOST_BITS_SET.error(what, entry, bits, suggestion);
            }
        }

        /** The settings as they are, unchecked: a layer (the file) whose values later layers may still change. */
        Config unchecked() {
            return new Config(home, data, sites, production, bind, port, hosts, workers, queue, bodyLimit, routeTimeout,
                    sourceCache, pageCaches, storeMapSize, contentFrom, changeRetention, storeReads, xmlLimits, outbound, batchRoots,
                    batchWorkers, batchQueue, trustedProxies, compression, logLevel, logFile, accessLog, metrics, metricsAllow,
                    new BodyRate(Math.max(0, bodyMinRate), bodyGrace == null ? Duration.ZERO : bodyGrace,
                            bodyTimeLimit == null || bodyTimeLimit.isZero() || bodyTimeLimit.isNegative() ? BodyRate.DEFAULT.timeLimit() : bodyTimeLimit),
                    batchTimeLimit, batchMinShare,
                    new DeleteGuard(Math.max(0, confirmDeleteDepth), Math.max(0, confirmDeleteDocuments)),
                    clusterDatabase == null ? null : new Cluster(clusterDatabase, clusterPasswordFile, clusterNodes,
                            clusterBatchLease == null ? Cluster.DEFAULT_BATCH_LEASE : clusterBatchLease), pageCacheMemory);
        }

        private static boolean isAddress(String bind) {
            try {
                java.net.InetAddress.getByName(bind);
                return true;
            } catch (java.net.UnknownHostException | SecurityException e) {
                return false;
            }
        }

        /** The real path of {@code p}'s nearest existing ancestor with the rest appended: where it really lies. */
        private static Path real(Path p) {
            Path existing = p;
            while (existing != null && !Files.exists(existing)) existing = existing.getParent();
            if (existing == null) return p;
            try {
                return existing.toRealPath().resolve(existing.relativize(p)).normalize();
            } catch (java.io.IOException e) {
                return p;
            }
        }

        private static void need(boolean ok, ErrorMessage message, Object... values) {
            if (!ok) throw message.error(values);
        }
    }

    /** Refuses (naming the setting) unless {@code folder} is a readable folder. */
    public static void requireFolder(Path folder, String setting) {
        if (!Files.isDirectory(folder)) {
            throw ErrorMessage.SETTING_NOT_FOLDER.error(setting, folder);
        }
        if (!Files.isReadable(folder)) throw ErrorMessage.SETTING_UNREADABLE.error(setting, folder);
    }

    /**
     * Parses a duration: ISO 8601 ({@code PT10S}, {@code PT1M30S}) or a number with a unit
     * ({@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 7d}).
     */
    public static Duration duration(String text, String setting) {
        String t = text.strip();
        try {
            if (t.regionMatches(true, 0, "PT", 0, 2)) return Duration.parse(t.toUpperCase(java.util.Locale.ROOT));
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("([0-9]+)(ms|s|m|h|d)").matcher(t);
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                return switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "d" -> Duration.ofDays(n);
                    default -> Duration.ofHours(n);
                };
            }
        } catch (java.time.format.DateTimeParseException | ArithmeticException | NumberFormatException e) {
            // refused below, with the setting's name
        }
        throw ErrorMessage.NOT_A_DURATION_SETTING.error(setting, text);
    }

    /** Parses a share above 0 and at most 1: a fraction ({@code 0.1}) or a percentage ({@code 10%}). */
    public static double share(String text, String setting) {
        String t = text.strip();
        try {
            double v = t.endsWith("%") ? Double.parseDouble(t.substring(0, t.length() - 1).strip()) / 100 : Double.parseDouble(t);
            if (v > 0 && v <= 1 && !t.matches(".*[a-zA-Z].*")) return v;
        } catch (NumberFormatException e) {
            // refused below, with the setting's name
        }
        throw ErrorMessage.NOT_A_SHARE.error(setting, text);
    }

    /** Parses a size such as 512M, 16G or 1048576 (bytes). */
    public static long size(String text, String setting) {
        String t = text.strip().toUpperCase(java.util.Locale.ROOT);
        long unit = 1;
        if (t.endsWith("K")) unit = 1L << 10;
        else if (t.endsWith("M")) unit = 1L << 20;
        else if (t.endsWith("G")) unit = 1L << 30;
        else if (t.endsWith("T")) unit = 1L << 40;
        if (unit > 1) t = t.substring(0, t.length() - 1);
        try {
            return Math.multiplyExact(Long.parseLong(t), unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw ErrorMessage.NOT_A_SIZE_SETTING.error(setting, text);
        }
    }
}
