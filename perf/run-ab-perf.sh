#!/usr/bin/env bash
# perf/run-ab.sh under Linux perf: the same two servers and load (every argument and environment
# variable is run-ab.sh's), with `perf record -F 499` of both server processes over the measured
# turns, then the samples split by process, named by symbol (the JIT's names from
# `jcmd PID Compiler.perfmap`) and divided by each side's pages: where B spends more per page than
# A, and where less. One sample is about 2 ms of CPU, so 10 samples per 1,000 pages are 20 µs a page.
# Needs /usr/bin/perf (apt-get install linux-perf). Run it alone, as every benchmark.
#
# Usage: perf/run-ab-perf.sh "JAVA OPTS A" "JAVA OPTS B" [ROOT_A] [ROOT_B]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v perf >/dev/null || { echo "no perf on the path (apt-get install linux-perf)" >&2; exit 2; }
out=perf/target/pages
rounds="${ROUNDS:-6}"; phase="${PHASE:-10}"; warmup="${WARMUP:-30}"
. perf/ab-measured.sh
ab_measured "$out/ab-perf-run.txt" "$@"
jcmd "$pa" Compiler.perfmap >/dev/null; jcmd "$pb" Compiler.perfmap >/dev/null
# ends 2 s before the last turn does, so that both servers still answer the maps' update below
perf record -F 499 -p "$pa,$pb" -o "$out/ab-perf.data" -- sleep $((2 * rounds * phase - 4)) > /dev/null 2>&1
# the methods compiled since the first map
jcmd "$pa" Compiler.perfmap >/dev/null || echo "A's map not updated: methods compiled in the run may show as [unknown]" >&2
jcmd "$pb" Compiler.perfmap >/dev/null || echo "B's map not updated: methods compiled in the run may show as [unknown]" >&2
wait $run
tr -d '\033' < "$out/ab-perf-run.txt" | grep -v '^\[0m' | tail -8
perf script -i "$out/ab-perf.data" -F pid,ip,sym,dso 2>/dev/null > "$out/ab-perf.txt"
python3 - "$pa" "$pb" "$out" <<'PY'
import collections, re, sys
pa, pb, out = sys.argv[1:4]
def pages(f):
    return sum(float(l.split()[0]) for l in open(f) if l.strip())
na, nb = pages(out + '/ab-A.txt'), pages(out + '/ab-B.txt')
by = {pa: collections.Counter(), pb: collections.Counter()}
kinds = {pa: collections.Counter(), pb: collections.Counter()}
for line in open(out + '/ab-perf.txt'):
    parts = line.strip().split(None, 2)
    if len(parts) < 3 or parts[0] not in by:
        continue
    pid, _, rest = parts
    m = re.match(r'(.*)\s+\((.*)\)$', rest)
    sym, dso = (m.group(1), m.group(2)) if m else (rest, '')
    kind = 'kernel' if 'kernel' in dso else 'libjvm' if 'libjvm' in dso else 'libc' if 'libc' in dso \
        else 'compiled Java' if 'perf-' in dso else 'other'
    sym = re.sub(r'\$\$Lambda\$\d+/0x[0-9a-f]+', '$$Lambda', sym.strip())
    sym = re.sub(r'^\S+ (?=\S+\()', '', sym)   # the return type
    sym = re.sub(r'\(.*\)$', '()', sym)          # the parameters
    by[pid][(kind, sym)] += 1
    kinds[pid][kind] += 1
A, B = by[pa], by[pb]
print(f"pages A {na:.0f}, B {nb:.0f}; samples per 1,000 pages A {sum(A.values()) * 1000 / na:.1f}, B {sum(B.values()) * 1000 / nb:.1f}")
for k in sorted(set(kinds[pa]) | set(kinds[pb])):
    print(f"  {k:14s} {kinds[pa][k] * 1000 / na:8.1f} {kinds[pb][k] * 1000 / nb:8.1f}")
diff = lambda k: B[k] * 1000 / nb - A[k] * 1000 / na
keys = sorted(set(A) | set(B), key=diff)
row = lambda k: f"  {A[k] * 1000 / na:7.2f} {B[k] * 1000 / nb:7.2f} {diff(k):+7.2f}  {k[0]}: {k[1][:140]}"
print("B more than A, samples per 1,000 pages (A, B, B-A):")
for k in reversed(keys[-40:]): print(row(k))
print("A more than B:")
for k in keys[:15]: print(row(k))
PY
