#!/usr/bin/env bash
# A cluster node's CPU per uncached page against a single node's (issue 23, goal <= 1.05x): the
# same content from the store, page caches off, --production, under the same alternating load
# (perf/run-ab.sh): A a single node, B a cluster node on a PostgreSQL made for the run (durable
# settings, ClusterBench postgres), its applier following the log and its read-your-writes
# filter before every page. Run alone on the machine. Environment as perf/run-ab.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."
out=perf/target/pages
mkdir -p "$out"
cp=$(perf/classpath.sh)
java -cp "$cp" arno.perf.cluster.ClusterBench postgres 3600 > "$out/cluster-pg.log" 2>&1 &
pg=$!
trap 'kill "$pg" 2>/dev/null || true; wait "$pg" 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do grep -q '^URL ' "$out/cluster-pg.log" && break; sleep 0.5; done
url=$(sed -n 's/^URL //p' "$out/cluster-pg.log")
[ -n "$url" ] || { cat "$out/cluster-pg.log" >&2; exit 1; }
perf/run-ab.sh "-Darno.store=true" "-Darno.store=true -Darno.cluster=$url"
