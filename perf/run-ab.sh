#!/usr/bin/env bash
# Two servers under the same full-text load in turns (AlternatingSimulation): for comparing two
# builds or two settings on a machine whose speed drifts from minute to minute. Each turn is
# PHASE seconds on one server, then the same on the other, ROUNDS times, after WARMUP seconds
# on each; the medians over turns and the per-round throughput ratio B/A are printed.
#
# Usage: perf/run-ab.sh "JAVA OPTS A" "JAVA OPTS B" [ROOT_A] [ROOT_B]
#   ROOT_x: a checkout built with `mvn -B -pl perf -am package -DskipTests` (default: this one),
#   e.g. a `git worktree` of the commit to compare against.
# Environment: ROUNDS (6), PHASE (10), WARMUP (30); PAGE=abstract (see below); PROFILE=1 records both servers with JFR over the
# measured rounds and writes their CPU and allocation per page side by side (ProfileDiff). Run
# perf/run-pages.sh once first. Without PROFILE it also prints what Gatling takes of the cores
# (µs of its CPU per page, its share), how busy the machine was over the measured turns, and each
# server's context switches per page.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${ROUNDS:-6}"; phase="${PHASE:-10}"; warmup="${WARMUP:-30}"
out=perf/target/pages
content="${CONTENT:-$out/data-1000/content}"
# CONTENT_A, CONTENT_B: each side's own content (default CONTENT), for a build whose generator wrote
# another layout (perf/guard.sh); the paths asked are those of B's.
content_a="${CONTENT_A:-$content}"; content_b="${CONTENT_B:-$content}"
for c in "$content_a" "$content_b"; do
  [ -d "$c/journals" ] || { echo "no content in $c: run perf/run-pages.sh first (or CONTENT=folder)" >&2; exit 1; }
done
root_a="$(cd "${3:-.}" && pwd)"; root_b="$(cd "${4:-.}" && pwd)"
# SITES_A, SITES_B: the checkout whose sites and stylesheets a side serves (default its ROOT): one
# build's engine with another's stylesheets sets the two apart. PATHS_FROM: the content whose
# full-text pages are asked (default CONTENT_B), when B's content is in an older layout.
sites_a="$(cd "${SITES_A:-$root_a}" && pwd)"; sites_b="$(cd "${SITES_B:-$root_b}" && pwd)"
paths_from="${PATHS_FROM:-$content_b}"
classpath() { # root [test]: its class path, built by its perf/classpath.sh (older checkouts: from the last install)
  if [ -x "$1/perf/classpath.sh" ]; then (cd "$1" && perf/classpath.sh ${2:-}); else
    echo "$1/perf/target/classes:$(cat "$1/perf/target/classpath.txt")"; fi
}
testcp=$(classpath . test)

pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
start() { # root opts port log content sites
  local scp; scp=$(classpath "$1")
  # shellcheck disable=SC2086 # the options are words
  java -Xmx1g $2 -cp "$scp" arno.perf.pages.PerfServer "$6" "$5" "$3" /dev/null > "$4" 2>&1 &
  pids+=($!)
}
start "$root_a" "$1" 18081 "$out/ab-a.log" "$content_a" "$sites_a"
start "$root_b" "$2" 18082 "$out/ab-b.log" "$content_b" "$sites_b"
for _ in $(seq 1 240); do grep -q READY "$out/ab-a.log" && grep -q READY "$out/ab-b.log" && break; sleep 0.5; done
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" ; }

rm -rf "$out/ab"
# PAGE=abstract asks the articles' abstract pages instead: the same page frame (request, routing,
# page model, entry and JATS read) with little body, so the fixed cost of a page stands out.
strip=$([ "${PAGE:-full}" = abstract ] && echo 's#/full$##' || echo '')
{ echo path; java -cp "$(classpath .)" arno.perf.pages.PerfServer --list "$paths_from" | sed "$strip"; } > "$out/ab-paths.csv"
rm -f "$out/ab-measuring"
java -Xmx1g --add-opens=java.base/java.lang=ALL-UNNAMED -Da=http://127.0.0.1:18081 -Db=http://127.0.0.1:18082 \
    -Dpaths="$PWD/$out/ab-paths.csv" -Drounds="$rounds" -Dphase="$phase" -Dwarmup="$warmup" -Dusers=32 \
    -cp "$testcp" io.gatling.app.Gatling \
    --simulation arno.perf.pages.AlternatingSimulation --results-folder "$out/ab" > "$out/ab-gatling.log" 2>&1 &
g=$!
# The measured turns start 2 x WARMUP after the simulation does, not after the launch: Gatling's JVM
# takes seconds to start, and counted from the launch the window took in B's last seconds of warm-up
# (always B's: its warm-up is the second), so B's CPU a page read high by several percent.
launched=$(date +%s.%N)
for _ in $(seq 1 600); do grep -q 'Simulation .* started' "$out/ab-gatling.log" 2>/dev/null && break
  kill -0 "$g" 2>/dev/null || break; sleep 0.2; done
started=$(date +%s.%N)
sleep $((2 * warmup))
# the measured turns start now: run-ab-perf.sh starts recording on this file
touch "$out/ab-measuring"
# busy ticks of the whole machine (every core): user, nice, system, irq, softirq, steal
busy() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat ; }
# context switches of every thread of a process (a hand-off or a timed wait per page shows here)
# A thread may end between the glob and its read: cat then fails, and under pipefail and set -e the
# whole script would stop there, its EXIT trap killing both servers silently while the load
# generator ran on (the thirteenth and fourteenth sessions lost runs to it). A thread missed is a
# few switches; the counts are compared over 20,000 pages.
switches() { { cat /proc/"$1"/task/*/status 2>/dev/null || true; } | awk '/ctxt_switches/ { n += $2 } END { print n + 0 }' ; }
a0=$(ticks "${pids[0]}"); b0=$(ticks "${pids[1]}"); g0=$(ticks "$g"); m0=$(busy)
as0=$(switches "${pids[0]}"); bs0=$(switches "${pids[1]}")
if [ "${PROFILE:-0}" != 1 ]; then
  # The load generator's share, over the measured turns only (it then writes its report).
  sleep $((2 * rounds * phase))
  g1=$(ticks "$g" 2>/dev/null || echo "$g0"); m1=$(busy)
fi
if [ "${PROFILE:-0}" = 1 ]; then # both servers recorded over the measured rounds only (issue 25: found, not guessed)
  for i in 0 1; do jcmd "${pids[$i]}" JFR.start name=ab settings=profile filename="$PWD/$out/ab-$i.jfr" > /dev/null; done
fi
wait "$g"
a1=$(ticks "${pids[0]}"); b1=$(ticks "${pids[1]}")
as1=$(switches "${pids[0]}"); bs1=$(switches "${pids[1]}")
if [ "${PROFILE:-0}" = 1 ]; then
  for i in 0 1; do jcmd "${pids[$i]}" JFR.stop name=ab > /dev/null; done
fi

# One request name's row of the report: count p50 p95 p99 (columns 2, 8, 10, 11).
row() { sed -n "/ellipsed-name\">$1</,/<\\/tr>/p" "$out"/ab/*/index.html \
          | sed -n 's/.*col-\([0-9]*\)">\([^<]*\)<.*/\1 \2/p' \
          | awk '$1 == 2 { n = $2 } $1 == 8 { a = $2 } $1 == 10 { b = $2 } $1 == 11 { c = $2 } END { print n, a, b, c }' ; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }' ; }
echo "== $(date -u +%FT%TZ), $rounds rounds of $phase s per server after $warmup s each; A: $root_a $1 (sites: $sites_a); B: $root_b $2 (sites: $sites_b)"
echo "   the load generator started $(awk -v a="$launched" -v b="$started" 'BEGIN { printf "%.1f", b - a }') s after its launch; CPU is counted from its warm-ups' end"
for s in A B; do
  for r in $(seq 1 "$rounds"); do row "$s$r"; done > "$out/ab-$s.txt"
  t=$([ "$s" = A ] && echo $((a1 - a0)) || echo $((b1 - b0)))
  sw=$([ "$s" = A ] && echo $((as1 - as0)) || echo $((bs1 - bs0)))
  echo "$s: pages/s per turn $(awk -v p="$phase" '{ printf "%.0f ", $1 / p }' "$out/ab-$s.txt")"
  echo "   median $(awk -v p="$phase" '{ print $1 / p }' "$out/ab-$s.txt" | median) pages/s," \
       "p50 $(cut -d' ' -f2 "$out/ab-$s.txt" | median) ms, p95 $(cut -d' ' -f3 "$out/ab-$s.txt" | median) ms," \
       "p99 $(cut -d' ' -f4 "$out/ab-$s.txt" | median) ms, server CPU" \
       "$(awk -v t="$t" -v hz="$(getconf CLK_TCK)" '{ n += $1 } END { printf "%.0f", t / hz * 1e6 / n }' "$out/ab-$s.txt") us/page," \
       "$(awk -v c="$sw" '{ n += $1 } END { printf "%.1f", c / n }' "$out/ab-$s.txt") context switches/page"
done
if [ "${PROFILE:-0}" != 1 ]; then
  # What Gatling itself takes of the cores (issue 25: a page's CPU against the ceiling's is the
  # server's; the cores it runs on are shared with the load generator).
  hz=$(getconf CLK_TCK); cores=$(nproc)
  pages=$(cat "$out/ab-A.txt" "$out/ab-B.txt" | awk '{ n += $1 } END { print n }')
  echo "load: Gatling $(awk -v t=$((g1 - g0)) -v hz="$hz" -v n="$pages" 'BEGIN { printf "%.0f", t / hz * 1e6 / n }') us/page," \
       "$(awk -v t=$((g1 - g0)) -v hz="$hz" -v w=$((2 * rounds * phase)) -v c="$cores" 'BEGIN { printf "%.0f", 100 * t / hz / (w * c) }')% of the $cores cores;" \
       "the machine busy $(awk -v t=$((m1 - m0)) -v hz="$hz" -v w=$((2 * rounds * phase)) -v c="$cores" 'BEGIN { printf "%.0f", 100 * t / hz / (w * c) }')% over the measured turns"
fi
if [ "${PROFILE:-0}" = 1 ]; then
  java -cp "$(classpath .)" arno.perf.pages.ProfileDiff "$out/ab-0.jfr" "$(awk '{ n += $1 } END { print n }' "$out/ab-A.txt")" \
      "$out/ab-1.jfr" "$(awk '{ n += $1 } END { print n }' "$out/ab-B.txt")" > "$out/ab-profile.txt"
  echo "profiles: $out/ab-0.jfr (A), $out/ab-1.jfr (B); per page side by side: $out/ab-profile.txt"
fi
echo "B/A pages/s per round: $(paste -d' ' "$out/ab-A.txt" "$out/ab-B.txt" | awk '{ printf "%.3f ", $5 / $1 }')," \
     "median $(paste -d' ' "$out/ab-A.txt" "$out/ab-B.txt" | awk '{ print $5 / $1 }' | median)"
