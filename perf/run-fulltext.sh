#!/usr/bin/env bash
# The full-text index's figures (issue 24, "Measured") at one size: a store of SIZE demo articles and
# its index built (load rate, build rate, sizes, text indexed, heap), results pages of five kinds of
# query (one client, then CLIENTS), commit to searchable, and the same queries as the sites' search
# pages through HTTP (a production ./arno serve on DIR). Every command is printed before it runs.
#   perf/run-fulltext.sh SIZE [DIR] [CLIENTS] [SECONDS] [FRESH]     (DIR /tmp/arno-fulltext-SIZE, 8, 30, 100)
# An existing DIR is reused (its build is not run again; rm -rf it to build anew; FULLTEXT_REINDEX=1 builds its
# index again from its store; a DIR without an index gets one). FULLTEXT_STORE_ONLY=1 makes the store and stops. The store is built
# --slim at every size, so the three sizes have one shape: no figure and table entries, each JATS without
# article-meta and back matter; the index takes the same text (the same bytes per article as from the demo
# as is), and at 1,000,000 the demo's full store (77 KB an article) does not fit 80 GB beside the index.
# FULLTEXT_BUILD_OPTS overrides (e.g. "" for the demo as is, "--no-parts"). JAVA_OPTS: default -Xmx4g (the
# benches), ARNO_JAVA_OPTS the server's (-Xmx4g); FULLTEXT_HTTP=0 leaves the HTTP step out, FULLTEXT_PORT (18471).
set -euo pipefail
cd "$(dirname "$0")/.."
size="${1:?usage: perf/run-fulltext.sh SIZE [DIR] [CLIENTS] [SECONDS] [FRESH]}"
dir="${2:-/tmp/arno-fulltext-$size}"
clients="${3:-8}"
seconds="${4:-30}"
fresh="${5:-100}"
java_opts="${JAVA_OPTS:--Xmx4g}"
build_opts="${FULLTEXT_BUILD_OPTS---slim}"

echo "# perf/run-fulltext.sh $*   ($(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ', uncommitted changes'))"
echo "# $(uptime)"
echo "# $(nproc) processors; $(free -g | awk '/^Mem:/ {print $2 " GB memory, " $7 " GB available"}'); java $(java -version 2>&1 | head -1)"

CP=$(perf/classpath.sh)
run() {
    # The command as it can be typed again (the class path as $CP: perf/classpath.sh prints it).
    echo "+ ${*//$CP/\$CP}"
    "$@"
}

if [ -e "$dir" ]; then
    if [ "${FULLTEXT_REINDEX:-0}" = 1 ] || [ ! -d "$dir/fulltext" ]; then
        echo "# $dir exists: its store reused, its index built again"
        run java $java_opts -cp "$CP" arno.perf.fulltext.FulltextBench index "$dir"
    else
        echo "# $dir exists: reusing it, no build (rm -rf $dir to build again; FULLTEXT_REINDEX=1 builds its index again)"
    fi
else
    # Measured per article by the smoke runs: store 77 KB (demo as is) or 48 KB (--slim), index 17 KB.
    per=$(( 17 + $( [[ " $build_opts " == *" --slim "* ]] && echo 48 || echo 77 ) ))
    need=$(( size * per / 1000000 + 1 ))
    parent=$(dirname "$dir")
    mkdir -p "$parent"
    free_gb=$(df -BG --output=avail "$parent" | tail -1 | tr -dc 0-9)
    echo "# about $need GB needed in $parent, $free_gb GB free"
    if [ "$need" -gt $(( free_gb * 9 / 10 )) ]; then
        echo "not enough disk for $size articles in $parent (about $need GB, $free_gb GB free)" >&2
        exit 1
    fi
    if [ "${FULLTEXT_STORE_ONLY:-0}" = 1 ]; then
        # The store alone (it may be made beside other work); the rest is a later run, alone on the machine.
        run java $java_opts -cp "$CP" arno.perf.fulltext.FulltextBench build "$dir" "$size" $build_opts --store-only
        exit 0
    fi
    run java $java_opts -cp "$CP" arno.perf.fulltext.FulltextBench build "$dir" "$size" $build_opts
fi
run java $java_opts -cp "$CP" arno.perf.fulltext.FulltextBench query "$dir" "$clients" "$seconds"
run java $java_opts -cp "$CP" arno.perf.fulltext.FulltextBench fresh "$dir" "$fresh"

# The same queries as the sites' search pages, through HTTP from a production server on DIR (FULLTEXT_HTTP=0: not).
if [ "${FULLTEXT_HTTP:-1}" = 1 ]; then
    port="${FULLTEXT_PORT:-18471}"
    # page caches off: the demo's search route is cached per query, and the figure is the search's, not a cache hit's
    # The store's map as the benches open it (a million articles pass the default's 64 GB)
    printf '<arno xmlns="urn:arno:config"><store map-size="512G"/></arno>\n' > "$dir/arno.xml"
    echo "+ ARNO_JAVA_OPTS=${ARNO_JAVA_OPTS:--Xmx4g} ./arno serve --config $dir/arno.xml --data $dir --production --page-caches off --port $port &"
    ARNO_JAVA_OPTS="${ARNO_JAVA_OPTS:--Xmx4g}" ./arno serve --config "$dir/arno.xml" --data "$dir" --production --page-caches off --port "$port" > "$dir/serve.log" 2>&1 &
    server=$!
    trap 'kill $server 2>/dev/null || true' EXIT
    page="http://localhost:$port$(head -1 "$dir/search-pages.tsv" | cut -f2)"
    for _ in $(seq 1 1800); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' "$page" || true)" = 200 ] && break
        kill -0 $server 2>/dev/null || { echo "the server stopped: $dir/serve.log" >&2; exit 1; }
        sleep 1
    done
    run java $java_opts -cp "$CP" arno.perf.fulltext.FulltextBench http "$dir" "http://localhost:$port" "$clients" "$seconds"
    kill $server
    wait $server 2>/dev/null || true
    trap - EXIT
fi
echo "# $(du -sh "$dir/store" "$dir/fulltext" | tr '\n\t' '  ')"
echo "# $(uptime)"
