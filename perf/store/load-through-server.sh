#!/usr/bin/env bash
# ./arno store load --resources of the demo, with the store held by a running ./arno serve
# (the load goes through the server) against the same load with the server stopped, in one run.
# Usage: perf/store/load-through-server.sh [ARTICLES=2000]. Run alone on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
articles="${1:-2000}"
out=perf/target/load-through-server
rm -rf "$out"; mkdir -p "$out"
./arno --help > /dev/null                               # builds if needed, outside the timings
./arno generate --articles "$articles" --out "$out/content" > /dev/null
for mode in stopped serving; do
  data="$out/data-$mode"
  # A store like a first run's: serve once on a one-article demo, then stop.
  ./arno serve --port 0 --data "$data" --articles 1 > "$out/first-$mode.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 120); do grep -q 'serving on' "$out/first-$mode.log" && break; sleep 0.5; done
  if [ "$mode" = stopped ]; then kill -TERM "$pid"; wait "$pid" || true; fi
  echo "== $mode: load average $(cut -d' ' -f1-3 /proc/loadavg)"
  start=$(date +%s.%N)
  ./arno store load --resources "$out/content" --data "$data" 2>&1 | tr '\r' '\n' | grep -v ' written, ' | tail -3
  end=$(date +%s.%N)
  echo "   wall time of the command: $(echo "$end - $start" | bc) s"
  if [ "$mode" = serving ]; then kill -TERM "$pid"; wait "$pid" || true; fi
  ./arno store check --data "$data" | tail -1
done
