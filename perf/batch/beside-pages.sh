#!/usr/bin/env bash
# Issue 14, item 10: page throughput and p99 with no batch, with a batch whose workers give way to
# pages (batch/@min-share SHARE), and with the same batch not giving way (min-share 1), in one run
# on one server with a 256 MB heap (the heap of issue 14's 740 -> 540 pages/s figure).
# Usage: perf/batch/beside-pages.sh [ARTICLES=500] [SECONDS=30] [PAGE-CLIENTS=8] [INPUTS=2000] [SHARE=0.1]
# Wait for an idle machine first; the RESULT line goes into perf/RESULTS.md with this command.
set -euo pipefail
cd "$(dirname "$0")/../.."
CP=$(perf/classpath.sh)
work=perf/target/beside-pages
mkdir -p "$work"
java -Xmx256m -cp "$CP" arno.perf.batch.BatchBesidePages "$PWD" "$work" "${1:-500}" "${2:-30}" "${3:-8}" "${4:-2000}" "${5:-0.1}"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
