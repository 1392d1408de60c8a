#!/usr/bin/env bash
# Issue 13's figures, in one run on an idle machine:
#   1. Gatling, 32 users, closed model: full-text pages answered by the page cache, against the same
#      bytes served as static files by Tomcat's default servlet in the same server, and against
#      the same pages built afresh (page caches off);
#   2. PageCacheBench: heap per site with the memory tiers full, disk-tier and memory-tier hits
#      against pages built (one client), commit-to-first-request freshness, ARC against LRU.
# Usage: perf/run-caches.sh [ARTICLES=1000] [SECONDS=60] [WARMUP=60]
set -euo pipefail
cd "$(dirname "$0")/.."
articles="${1:-1000}"
seconds="${2:-60}"
warmup="${3:-60}"
out=perf/target/caches
mkdir -p "$out"
rm -rf "$out/gatling" "$out/static"

echo "== build (module classes, no install)"
cp=$(perf/classpath.sh)
testcp=$(perf/classpath.sh test)

# Its own folder: a folder another script generated may hold an older generator's layout.
content="$out/data-$articles/content"
if [ ! -d "$content/journals" ]; then
  echo "== generating $articles articles"
  java -cp "$cp" arno.server.Main generate --articles "$articles" --out "$content" > /dev/null
fi

port=18081
{ echo path; java -cp "$cp" arno.perf.pages.PerfServer --list "$content"; } > "$out/fulltext.csv"

server=
stop_server() {
  if [ -n "$server" ]; then kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  server=
}
trap stop_server EXIT
start_server() { # extra java options
  stop_server
  echo "== starting Arno (production mode, content in a store, -Xmx1g $*) on 127.0.0.1:$port"
  java -Xmx1g -Darno.store=true "$@" -cp "$cp" arno.perf.pages.PerfServer . "$content" "$port" /dev/null > "$out/server.log" 2>&1 &
  server=$!
  for _ in $(seq 1 600); do grep -q READY "$out/server.log" 2>/dev/null && return; sleep 0.5; done
  cat "$out/server.log"; exit 1
}

gatling() { # csv log
  java -Xmx1g --add-opens=java.base/java.lang=ALL-UNNAMED -Dbase="http://127.0.0.1:$port" -Dpaths="$PWD/$1" \
      -Dwarmup="$warmup" -Dseconds="$seconds" -Dusers=32 -cp "$testcp" io.gatling.app.Gatling \
      --simulation arno.perf.pages.PageSimulation --results-folder "$out/gatling/$(basename "$2" .log)" > "$2" 2>&1
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$server/stat" ; }
run() { # name csv
  echo "== gatling: $1 ($warmup s warm-up, then $seconds s measured, 32 users; load $(cut -d' ' -f1-3 /proc/loadavg))"
  gatling "$2" "$out/gatling-$1.log" &
  local g=$!
  sleep "$warmup"
  local before; before=$(cpu_ticks)
  sleep "$seconds"
  echo $(( $(cpu_ticks) - before )) > "$out/cpu-$1.ticks"
  wait "$g"
  sed -n '/ellipsed-name">page</,/<\/tr>/p' "$out"/gatling/gatling-"$1"/*/index.html \
    | sed -n 's/.*col-\([0-9]*\)">\([^<]*\)<.*/\1 \2/p' > "$out/page-$1.txt"
  echo "   $(col "$1" 2) pages, p50 $(col "$1" 8) ms, p99 $(col "$1" 11), max $(col "$1" 12)"
}
col() { awk -v c="$2" '$1 == c { print $2 }' "$out/page-$1.txt" ; }

# Cached pages and their static copies from one server: every page is fetched once (built and
# cached), and its bytes become the static file the default servlet serves at /_perf/static.
start_server -Darno.pageCaches=true -Darno.static="$out/static"
echo "== filling the page cache and writing the static copies"
echo path > "$out/static.csv"
tail -n +2 "$out/fulltext.csv" | while read -r p; do
  curl -sf -o "$out/static$p.html" --create-dirs "http://127.0.0.1:$port$p"
  echo "/_perf/static$p.html" >> "$out/static.csv"
done
p=$(sed -n 2p "$out/fulltext.csv")
cmp <(curl -sf "http://127.0.0.1:$port$p") <(curl -sf "http://127.0.0.1:$port/_perf/static$p.html") \
  && echo "   $(ls -R "$out/static" | grep -c html) static copies; the first is byte for byte the cached page"
run static "$out/static.csv"
run cached "$out/fulltext.csv"
start_server
run uncached "$out/fulltext.csv"
stop_server

rps() { awk -v n="$(col "$1" 2)" -v s="$seconds" 'BEGIN { printf "%.0f", n / s }' ; }
cpu_us() { awk -v t="$(cat "$out/cpu-$1.ticks")" -v n="$(col "$1" 2)" -v hz="$(getconf CLK_TCK)" \
              'BEGIN { printf "%.0f", t / hz * 1e6 / n }' ; }
echo "== summary ($(date -u +%FT%TZ), $(git rev-parse --short HEAD), $warmup s warm-up, $seconds s measured, 32 users)"
for m in static cached uncached; do
  echo "$m: $(rps $m) pages/s, p50 $(col $m 8) ms, p99 $(col $m 11) ms, server CPU $(cpu_us $m) us/page"
done
echo "cached / static: $(awk -v a="$(rps cached)" -v b="$(rps static)" 'BEGIN { printf "%.3f", a / b }')"
echo "cached / uncached: $(awk -v a="$(rps cached)" -v b="$(rps uncached)" 'BEGIN { printf "%.1f", a / b }')"

echo "== PageCacheBench (java -Xmx2g arno.perf.cache.PageCacheBench . $content 16 5 200)"
java -Xmx2g -cp "$cp" arno.perf.cache.PageCacheBench . "$content" 16 5 200 2>&1 | grep -v '^INFO\|^[A-Z][a-z][a-z] [0-9]\|org.apache\|^WARN'
