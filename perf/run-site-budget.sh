#!/usr/bin/env bash
# Issue 25, item 5: many sites' page caches in one heap, each case in its own JVM, one after the other:
#   1. 100 copies of journal-a in -Xmx512m, Zipf traffic plus a crawler: the shared budget (a quarter of the heap);
#   2. the same with per-site fixed tiers of the same total bytes (budget/100 each);
#   3. 60 copies in -Xmx256m with the shared budget, and 4. as before issue 25 (60 x 64 MB tiers).
# An OutOfMemoryError ends a case at once (-XX:+ExitOnOutOfMemoryError, exit status 3); the next one runs.
# Usage: perf/run-site-budget.sh [ARTICLES=1000] [SECONDS=600]
set -uo pipefail
cd "$(dirname "$0")/.."
articles="${1:-1000}"
seconds="${2:-600}"
out=perf/target/site-budget
mkdir -p "$out"
cp=$(perf/classpath.sh) || exit 1
content="$out/data-$articles/content"
if [ ! -d "$content/journals" ]; then
  echo "== generating $articles articles"
  java -cp "$cp" arno.server.Main generate --articles "$articles" --out "$content" > /dev/null || exit 1
fi
run() { # name heap sites mode [java options]
  local name=$1 heap=$2 sites=$3 mode=$4; shift 4
  echo "== $name: $sites sites, -Xmx$heap, $mode, $seconds s (load $(cut -d' ' -f1-3 /proc/loadavg))"
  java "-Xmx$heap" -XX:+ExitOnOutOfMemoryError "$@" -cp "$cp" arno.perf.pages.SiteBudget . "$content" "$sites" "$seconds" "$mode" \
      2> "$out/$name.err" | tee "$out/$name.log"
  echo "exit status ${PIPESTATUS[0]} (3: OutOfMemoryError; see $out/$name.err)"
}
# The fixed tiers get the shared case's budget: a quarter of the heap, as PipelineConfig's default computes it.
run shared-100-512m 512m 100 shared
run fixed-100-512m 512m 100 fixed
run shared-60-256m 256m 60 shared
run legacy-60-256m 256m 60 legacy
