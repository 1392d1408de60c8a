#!/usr/bin/env bash
# Issue 2's page figures, in one run:
#   1. heap per site: 20 sites sharing the compiled packages vs 20 private copies;
#   2. full-text page throughput under Gatling (32 users, closed model, uncached)
#      against the empty-servlet baseline in the same Tomcat, same session.
# Usage: perf/run-pages.sh [ARTICLES=1000] [SECONDS=60] [WARMUP=60]. Wait for an idle machine first.
# Each server is warmed up under the same load before it is measured: C2 spends about
# 45 s of CPU compiling the page path, most of it in the first minute, and a run
# that includes that measures the JIT compiler, not the server.
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
  java -cp "$cp" arno.demo.Generator generate --articles "$articles" --out "$content"
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

gatling() { # csv seconds log
  # Gatling (the load generator, not Arno) needs java.lang opened, as its Maven plugin does.
  java -Xmx1g --add-opens=java.base/java.lang=ALL-UNNAMED -Dbase="http://127.0.0.1:$port" -Dpaths="$PWD/$1" \
      -Dseconds="$2" -Dusers=32 \
      -cp "perf/target/test-classes:$cp:$(cat perf/target/classpath-test.txt)" io.gatling.app.Gatling \
      --simulation arno.perf.pages.PageSimulation --results-folder "$out/gatling" > "$3" 2>&1
}

warm() {
  echo "== warm-up: full-text pages ($warmup s, 32 users, not recorded)"
  gatling "$out/fulltext.csv" "$warmup" "$out/gatling-warmup.log"
}

# CPU seconds the server process has used so far (utime + stime, in clock ticks).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$server/stat" ; }

run() { # name csv
  echo "== gatling: $1 ($seconds s, 32 users)"
  local before; before=$(cpu_ticks)
  gatling "$2" "$seconds" "$out/gatling-$1.log"
  echo $(( $(cpu_ticks) - before )) > "$out/cpu-$1.ticks"
  sed -n '/Global Information/,/^====/p' "$out/gatling-$1.log"
}

start_server
warm
run empty "$out/empty.csv"
run files "$out/fulltext.csv"
start_server -Darno.store=true
warm
run store "$out/fulltext.csv"
stop_server

# Gatling's console table: "> name | total | ok | ko"; numbers carry thousands separators.
field() { grep -m1 "$2" "$out/gatling-$1.log" | awk -F'|' '{gsub(/[ ,]/, "", $2); print $2}' ; }
rps() { field "$1" 'mean throughput' ; }
pct() { field "$1" "response time $2 percentile" ; }
# Server CPU per request in microseconds: the cost of a page, independent of how busy the machine was.
cpu_us() { awk -v t="$(cat "$out/cpu-$1.ticks")" -v n="$(field "$1" 'request count')" -v hz="$(getconf CLK_TCK)" \
              'BEGIN { printf "%.0f", t / hz * 1e6 / n }' ; }
echo "== summary ($(date -u +%FT%TZ), $(git rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg), warm-up $warmup s, $seconds s measured)"
echo "empty servlet:        $(rps empty) req/s, p50 $(pct empty 50th) ms, p99 $(pct empty 99th) ms, server CPU $(cpu_us empty) us/request"
for m in files store; do
  echo "full text ($m): $(rps $m) pages/s, p50 $(pct $m 50th) ms, p95 $(pct $m 95th) ms, p99 $(pct $m 99th) ms," \
       "ratio to empty servlet $(awk -v a="$(rps $m)" -v b="$(rps empty)" 'BEGIN { printf "%.3f", a / b }'), server CPU $(cpu_us $m) us/page"
done
