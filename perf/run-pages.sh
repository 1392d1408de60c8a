#!/usr/bin/env bash
# Issue 2's page figures, in one run:
#   1. heap per site: 20 sites sharing the compiled packages vs 20 private copies;
#   2. full-text page throughput under Gatling (32 users, closed model, uncached)
#      against the empty-servlet baseline in the same Tomcat, same session.
# Usage: perf/run-pages.sh [ARTICLES=1000] [SECONDS=60] [WARMUP=60]. Wait for an idle machine first.
# Each server is warmed up under the same load before it is measured, by the same Gatling
# JVM without a pause: C2 spends about 45 s of CPU compiling the page path, most of it in
# the first minute, and Gatling itself is compiled during its first ten seconds; a run
# that includes either measures a JIT compiler, not the server.
set -euo pipefail
cd "$(dirname "$0")/.."
articles="${1:-1000}"
seconds="${2:-60}"
warmup="${3:-60}"
out=perf/target/pages
mkdir -p "$out"
rm -rf "$out/gatling" # reports of earlier runs: hundreds of MB each

echo "== build"
# install, not package: the perf classpath names the installed module jars
mvn -q -B -pl perf -am install -DskipTests
cp="perf/target/classes:$(cat perf/target/classpath.txt)"

echo "== heap per site (java -Xmx2g arno.perf.pages.SiteMemory . 20)"
java -Xmx2g -cp "$cp" arno.perf.pages.SiteMemory . 20 2>/dev/null

content="$out/data-$articles/content"
if [ ! -d "$content/journals" ]; then
  echo "== generating $articles articles"
  java -cp "$cp" arno.server.Main generate --articles "$articles" --out "$content"
fi

port=18080
{ echo path; java -cp "$cp" arno.perf.pages.PerfServer --list "$content"; } > "$out/fulltext.csv"
printf 'path\n/_perf/empty\n' > "$out/empty.csv"

server=
stop_server() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  server=
}
trap stop_server EXIT
start_server() { # extra java options
  stop_server
  echo "== starting Arno (production mode, -Xmx1g $*) on 127.0.0.1:$port"
  java -Xmx1g "$@" -cp "$cp" arno.perf.pages.PerfServer . "$content" "$port" /dev/null > "$out/server.log" 2>&1 &
  server=$!
  for _ in $(seq 1 240); do grep -q READY "$out/server.log" 2>/dev/null && return; sleep 0.5; done
  cat "$out/server.log"; exit 1
}

gatling() { # csv log
  # Gatling (the load generator, not Arno) needs java.lang opened, as its Maven plugin does.
  java -Xmx1g --add-opens=java.base/java.lang=ALL-UNNAMED -Dbase="http://127.0.0.1:$port" -Dpaths="$PWD/$1" \
      -Dwarmup="$warmup" -Dseconds="$seconds" -Dusers=32 \
      -cp "perf/target/test-classes:$cp:$(cat perf/target/classpath-test.txt)" io.gatling.app.Gatling \
      --simulation arno.perf.pages.PageSimulation --results-folder "$out/gatling/$(basename "$2" .log)" > "$2" 2>&1
}

# CPU seconds the server process has used so far (utime + stime, in clock ticks).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$server/stat" ; }

run() { # name csv
  echo "== gatling: $1 ($warmup s warm-up, then $seconds s measured, 32 users)"
  gatling "$2" "$out/gatling-$1.log" &
  local g=$!
  sleep "$warmup"
  local before; before=$(cpu_ticks)
  sleep "$seconds"
  echo $(( $(cpu_ticks) - before )) > "$out/cpu-$1.ticks"
  wait "$g"
  # The report's row for the measured request "page" (the global row includes the warm-up).
  sed -n '/ellipsed-name">page</,/<\/tr>/p' "$out"/gatling/gatling-"$1"/*/index.html \
    | sed -n 's/.*col-\([0-9]*\)">\([^<]*\)<.*/\1 \2/p' > "$out/page-$1.txt"
  echo "   $(col "$1" 2) pages, p50 $(col "$1" 8) ms, p75 $(col "$1" 9), p95 $(col "$1" 10), p99 $(col "$1" 11), max $(col "$1" 12)"
}
# A column of the "page" row: 2 count, 8 p50, 9 p75, 10 p95, 11 p99, 12 max, 13 mean (ms).
col() { awk -v c="$2" '$1 == c { print $2 }' "$out/page-$1.txt" ; }

start_server
run empty "$out/empty.csv"
run files "$out/fulltext.csv"
start_server -Darno.store=true
run store "$out/fulltext.csv"
stop_server

rps() { awk -v n="$(col "$1" 2)" -v s="$seconds" 'BEGIN { printf "%.0f", n / s }' ; }
pct() { col "$1" "$2" ; }
# Server CPU per request in microseconds: the cost of a page, independent of how busy the machine was.
cpu_us() { awk -v t="$(cat "$out/cpu-$1.ticks")" -v n="$(col "$1" 2)" -v hz="$(getconf CLK_TCK)" \
              'BEGIN { printf "%.0f", t / hz * 1e6 / n }' ; }
echo "== summary ($(date -u +%FT%TZ), $(git rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg), warm-up $warmup s, $seconds s measured)"
echo "empty servlet:        $(rps empty) req/s, p50 $(pct empty 8) ms, p99 $(pct empty 11) ms, server CPU $(cpu_us empty) us/request"
for m in files store; do
  echo "full text ($m): $(rps $m) pages/s, p50 $(pct $m 8) ms, p95 $(pct $m 10) ms, p99 $(pct $m 11) ms," \
       "ratio to empty servlet $(awk -v a="$(rps $m)" -v b="$(rps empty)" 'BEGIN { printf "%.3f", a / b }'), server CPU $(cpu_us $m) us/page"
done
