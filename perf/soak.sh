#!/usr/bin/env bash
# The soak (issue 14, item 11): ten minutes of mixed load against one ./arno serve in production mode
# (pages, store API writes, a Schematron batch each minute), reported per minute: pages, p50/p99, writes,
# batches, 5xx (goal 0) and the heap after GC (goal flat). Run alone on an idle machine.
# Usage: perf/soak.sh [MINUTES=10] [ARTICLES=300] [PAGE-CLIENTS=8] [WRITES-PER-SECOND=5]
# SOAK_JAVA_OPTS adds options to the server's JVM (a GC setting to compare, a flight recording).
set -euo pipefail
cd "$(dirname "$0")/.."
minutes="${1:-10}"; articles="${2:-300}"; clients="${3:-8}"; writes="${4:-5}"
out=perf/target/soak
rm -rf "$out"; mkdir -p "$out"
data="$out/data"
port=18083
cp=$(perf/classpath.sh)
# exec: the background job is then the JVM itself, which TERM stops (a subshell would pass it on to no one).
arno() { exec java -cp "$cp" -Darno.home="$PWD" arno.server.Main "$@"; }

echo "== a store like a first run's: the demo with $articles articles (development mode, then stopped)"
(arno serve --port "$port" --data "$data" --articles "$articles") > "$out/first.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do grep -q 'serving on' "$out/first.log" && break; sleep 0.5; done
kill -TERM "$pid"; wait "$pid" || true
password="soak-$(date +%s)-secret"
printf '%s\n' "$password" | (arno accounts add soak --roles read,write,admin --password-stdin --data "$data")
{ echo path; java -cp "$cp" arno.perf.pages.PerfServer --list "$data/content"; } > "$out/paths.csv"

echo "== serving in production mode (-Xmx512m)"
ARNO_HEAP=-Xmx512m
# the GC log shows whether the old generation is collected (a heap after GC that climbs until a
# mixed collection is garbage waiting; one that survives them is a leak)
java $ARNO_HEAP ${SOAK_JAVA_OPTS:-} -Xlog:gc:file="$out/gc.log":uptime -cp "$cp" -Darno.home="$PWD" arno.server.Main serve --production --port "$port" --data "$data" \
    --batch-root "$PWD/perf/batch" > "$out/server.log" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null || true; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do grep -q 'serving on' "$out/server.log" && break; sleep 0.5; done
echo "== soak: $minutes minutes, $clients page clients, $writes writes/s, a batch a minute ($(date -u +%FT%TZ), $(git rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg))"
java -Xmx512m -cp "$cp" arno.perf.Soak "http://127.0.0.1:$port" soak "$password" "$minutes" "$clients" "$writes" \
    "$PWD/perf/batch/jats-checks.sch" "$out/paths.csv" | tee "$out/soak.txt"
# what the heap holds at the end, live objects only (a full collection first)
jcmd "$server" GC.class_histogram > "$out/histogram.txt" 2>&1 || true
echo "== collections: $(grep -c 'Pause Young' "$out/gc.log") young, $(grep -c 'Pause Young (Mixed)\|Pause Young (Prepare Mixed)' "$out/gc.log") mixed, $(grep -c 'Pause Full' "$out/gc.log") full; live objects at the end: $(tail -1 "$out/histogram.txt")"
echo "   (GC log: $out/gc.log; live objects by class: $out/histogram.txt)"
