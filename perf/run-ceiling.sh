#!/usr/bin/env bash
# Issue 25, item 3, in one run: Arno serving the full-text pages from the store over HTTP under
# wrk (32 connections, as the issue measured) and the ceiling (arno.perf.pages.Ceiling: plain
# Saxon, the same stylesheets, the same articles as TinyTrees, a thread per core, no HTTP) in
# turns, and their ratio. Both JVMs live through the whole run; one works while the other waits
# (the ceiling's threads wait on a gate, Arno has no requests), Arno first in odd rounds and the
# ceiling first in even ones, so that the machine's drift from minute to minute falls on both
# alike: the ratio is read per round, within the same minute. wrk runs on one thread and its own
# CPU is read from /proc over Arno's turns, so what it takes of the cores is printed beside the
# ratio. The ceiling's pages are first checked equal to those of the very server measured (in a
# JVM apart, so that the checking code does not shape the measured JIT's profile).
#
# Usage: perf/run-ceiling.sh [JAVA OPTS]   (default: -Darno.store=true)
# Environment: ROUNDS (5), PHASE (10 s), WARMUP (30 s; on this machine's JIT 90), CONTENT
#   (perf/target/pages/data-1000/content), CEILING_OPTS: the ceiling's own JVM options (give it the
#   collector Arno was given, for a fair ratio).
# Needs wrk (Debian: apt-get install wrk). Run perf/run-pages.sh once first, and run this alone.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${ROUNDS:-5}"; phase="${PHASE:-10}"; warmup="${WARMUP:-30}"
opts="${1:--Darno.store=true}"
out=perf/target/pages
content="${CONTENT:-$out/data-1000/content}"
[ -d "$content/journals" ] || { echo "no content in $content: run perf/run-pages.sh first (or CONTENT=folder)" >&2; exit 1; }
command -v wrk >/dev/null || { echo "wrk is not installed (Debian: apt-get install wrk)" >&2; exit 1; }
cp=$(perf/classpath.sh)
port=18083
ss -ltn | grep -q ":$port " && { echo "port $port is taken: another run's server?" >&2; exit 1; }

pid=; cpid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$cpid" ] && kill "$cpid" 2>/dev/null; true' EXIT
# shellcheck disable=SC2086 # the options are words
java -Xmx1g $opts -cp "$cp" arno.perf.pages.PerfServer . "$content" $port /dev/null > "$out/ceiling-server.log" 2>&1 &
pid=$!
for _ in $(seq 1 240); do grep -q READY "$out/ceiling-server.log" && break; sleep 0.5; done
grep -q READY "$out/ceiling-server.log" || { echo "the server did not start: $out/ceiling-server.log" >&2; exit 1; }

java -cp "$cp" arno.perf.pages.PerfServer --list "$content" > "$out/ceiling-paths.txt"
cat > "$out/ceiling.lua" <<'LUA'
-- every full-text page in turn, from a different place in the list on each connection's thread
local paths = {}
for line in io.lines(os.getenv("PATHS")) do paths[#paths + 1] = line end
local i = 0
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
LUA
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK); cores=$(nproc)
run() { # seconds: one wrk run; prints "pages/s non2xx wrk-cpu-ticks server-cpu-ticks p99"
  local w s0 t
  PATHS="$PWD/$out/ceiling-paths.txt" wrk -t1 -c32 -d"$1"s --latency -s "$out/ceiling.lua" "http://127.0.0.1:$port" > "$out/ceiling-wrk.txt" 2>&1 &
  w=$!
  s0=$(ticks "$pid"); sleep 0.2
  local w0; w0=$(ticks "$w" 2>/dev/null || echo 0)
  local w1=$w0
  while kill -0 "$w" 2>/dev/null; do w1=$(ticks "$w" 2>/dev/null || echo "$w1"); sleep 0.5; done
  t=$(( $(ticks "$pid") - s0 ))
  awk -v wt=$((w1 - w0)) -v st="$t" '
    /Requests\/sec/ { r = $2 } /Non-2xx/ { bad = $NF } / 99% / { p = $2 }
    END { printf "%s %d %d %d %s\n", r, bad, wt, st, p }' "$out/ceiling-wrk.txt"
}
echo "== $(date -u +%FT%TZ), Arno ($opts) under wrk -t1 -c32 and the ceiling (${CEILING_OPTS:-no options}) in turns:" \
     "$warmup s warm-up each, $rounds rounds of $phase s each"
# Every page the measured server builds checked equal to the ceiling's, in a JVM of its own (the
# checking code, jsoup and XMLUnit, stays out of the measured JVM's profile).
# shellcheck disable=SC2086 # the options are words
java -Xmx1g ${CEILING_OPTS:-} -cp "$cp" arno.perf.pages.Ceiling --content "$content" --check-only \
    --against "http://127.0.0.1:$port" > "$out/ceiling-check.txt" 2>&1 \
  || { cat "$out/ceiling-check.txt" >&2; echo "the ceiling's pages are not the server's: $out/ceiling-check.txt" >&2; exit 1; }
grep -h "pages equal\|byte-identical" "$out/ceiling-check.txt"
# The ceiling's JVM, driven line by line: "warmup S" or a turn's seconds in, a line per turn out.
# shellcheck disable=SC2086 # the options are words
coproc CEIL { exec java -Xmx1g ${CEILING_OPTS:-} -cp "$cp" arno.perf.pages.Ceiling --content "$content" --turns --no-check 2>&1; }
cpid=$CEIL_PID
: > "$out/ceiling-saxon.txt"
ceiling() { # "warmup S" or S: one turn of the ceiling; prints its "turn" line (the rest goes to the log)
  [ -z "$1" ] || echo "$1" >&"${CEIL[1]}"
  local line
  while IFS= read -r line <&"${CEIL[0]}"; do
    echo "$line" >> "$out/ceiling-saxon.txt"
    case "$line" in
      "warmup:"*|"turn "*|*"pages prepared"*) echo "$line"; return 0 ;;
    esac
  done
  echo "the ceiling stopped: $out/ceiling-saxon.txt" >&2; exit 1
}
ceiling "" > /dev/null   # its pages prepared (stylesheets compiled, articles parsed) before anything is measured
arno_turn() { # round: one turn of Arno; prints its line
  local line; line=$(run "$phase"); echo "$line" >> "$out/ceiling-arno.txt"
  set -- $line
  [ "$2" = 0 ] || echo "round $r: $2 responses not 2xx" >&2
  awk -v r="$r" -v p="$1" -v wt="$3" -v st="$4" -v ph="$phase" -v hz="$hz" -v c="$cores" -v l="$5" 'BEGIN {
    printf "round %d, Arno: %.0f pages/s, p99 %s, server CPU %.0f us/page, wrk %.0f us/page (%.0f%% of the %d cores)\n",
      r, p, l, st / hz * 1e6 / (p * ph), wt / hz * 1e6 / (p * ph), 100 * wt / hz / (ph * c), c }'
}
ceiling_turn() {
  local line; line=$(ceiling "$phase")
  echo "$line" | sed "s/^turn [0-9]*:/round $r, ceiling:/"
  echo "$line" | awk '{ print $3 }' >> "$out/ceiling-turns.txt"
}
run "$warmup" > /dev/null
ceiling "warmup $warmup" > /dev/null
: > "$out/ceiling-arno.txt"; : > "$out/ceiling-turns.txt"
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) = 1 ]; then arno_turn; ceiling_turn; else ceiling_turn; arno_turn; fi
done
fd=${CEIL[1]}; exec {fd}>&-   # end of input: the ceiling prints its median and exits
wait "$cpid" 2>/dev/null || true; cpid=
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
arno=$(cut -d' ' -f1 "$out/ceiling-arno.txt" | median)
ceil=$(median < "$out/ceiling-turns.txt")
share=$(awk -v hz="$hz" -v ph="$phase" -v c="$cores" '{ print 100 * $3 / hz / (ph * c) }' "$out/ceiling-arno.txt" | median)
ratios=$(paste -d' ' "$out/ceiling-arno.txt" "$out/ceiling-turns.txt" | awk '{ printf "%.3f ", $1 / $6 }')
echo "arno: median $arno pages/s; wrk takes $(printf %.1f "$share")% of the cores; ceiling: median $ceil pages/s"
echo "Arno/ceiling per round: $ratios, median $(echo "$ratios" | tr ' ' '\n' | grep . | median);" \
     "of the medians $(awk -v a="$arno" -v c="$ceil" 'BEGIN { printf "%.3f", a / c }')"
# CPU a page: the server's (wrk's apart) against the ceiling's process, each the median of its turns
acpu=$(awk -v hz="$hz" -v ph="$phase" '{ print $4 / hz * 1e6 / ($1 * ph) }' "$out/ceiling-arno.txt" | median)
ccpu=$(grep -o 'process CPU [0-9]*' "$out/ceiling-saxon.txt" | awk '{ print $3 }' | median)
echo "CPU a page: Arno $(printf %.0f "$acpu") us, the ceiling $(printf %.0f "$ccpu") us; ceiling/Arno $(awk -v a="$acpu" -v c="$ccpu" 'BEGIN { printf "%.3f", c / a }')"
