#!/usr/bin/env bash
# perf/run-ab.sh under async-profiler: the same two servers and load (every argument and
# environment variable is run-ab.sh's), each server profiled (CPU, 1 ms) over the measured turns
# only, then both profiles divided by each side's pages. Unlike perf/run-ab-perf.sh, whose JIT
# symbols put inlined code on the outermost compiled method, async-profiler walks Java frames
# with their inlined callees, so a method's own time is its own wherever the JIT put it.
# The profiler is tools.profiler:async-profiler from Maven Central (fetched once into ~/.m2) and is
# attached to the running servers (jcmd JVMTI.agent_load), so the warm-ups are not in the profiles.
# Run it alone, as every benchmark.
#
# Usage: perf/run-ab-async.sh "JAVA OPTS A" "JAVA OPTS B" [ROOT_A] [ROOT_B]
# Writes perf/target/pages/ab-async-{A,B}.collapsed (stacks, one line each with its samples) and
# prints, per 1,000 pages, the methods whose own time differs most, and Arno's packages.
set -euo pipefail
cd "$(dirname "$0")/.."
out=perf/target/pages
version=4.0
rounds="${ROUNDS:-6}"; phase="${PHASE:-10}"; warmup="${WARMUP:-30}"
jar="$HOME/.m2/repository/tools/profiler/async-profiler/$version/async-profiler-$version.jar"
if [ ! -f "$jar" ]; then
  mvn -q -B dependency:get -Dartifact="tools.profiler:async-profiler:$version" >/dev/null \
    || { echo "could not fetch tools.profiler:async-profiler:$version" >&2; exit 2; }
fi
lib="$PWD/$out/async-profiler/linux-x64/libasyncProfiler.so"
if [ ! -f "$lib" ]; then
  mkdir -p "$out/async-profiler" && (cd "$out/async-profiler" && unzip -q -o "$jar" 'linux-x64/*')
fi
rm -f "$out"/ab-async-?.collapsed
. perf/ab-measured.sh
# Both servers start with precise debug information at every compiled instruction: without it, a
# sample inside inlined code is put on the nearest call site's method (the warm-up compiles the hot
# path before the agent attaches, so the agent cannot turn it on itself). The thirteenth session's
# profiles lacked it and put 31 us a page of the response's text events on the deadline check.
precise="-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints"
set -- "$precise ${1:-}" "$precise ${2:-}" "${@:3}"
ab_measured "$out/ab-async-run.txt" "$@"
# the agent's options in quotes of their own: jcmd would read "event=cpu" as an argument of its own
for p in "$pa" "$pb"; do jcmd "$p" JVMTI.agent_load "$lib" '"start,event=cpu,interval=1ms"' >/dev/null; done
# stopped 2 s before the last turn ends, while both servers still run
sleep $((2 * rounds * phase - 4))
jcmd "$pa" JVMTI.agent_load "$lib" "\"stop,collapsed,file=$PWD/$out/ab-async-A.collapsed\"" >/dev/null
jcmd "$pb" JVMTI.agent_load "$lib" "\"stop,collapsed,file=$PWD/$out/ab-async-B.collapsed\"" >/dev/null
[ -s "$out/ab-async-A.collapsed" ] && [ -s "$out/ab-async-B.collapsed" ] || { echo "async-profiler wrote no profile" >&2; wait $run; exit 2; }
wait $run
tr -d '\033' < "$out/ab-async-run.txt" | grep -v '^\[0m' | tail -8
python3 - "$out" <<'PY'
import collections, sys
out = sys.argv[1]
def pages(f):
    return sum(float(l.split()[0]) for l in open(f) if l.strip())
def load(side):
    own, incl, pkg = collections.Counter(), collections.Counter(), collections.Counter()
    total = 0
    for line in open(f"{out}/ab-async-{side}.collapsed"):
        stack, _, n = line.rstrip().rpartition(' ')
        n = int(n)
        frames = stack.split(';')
        total += n
        own[frames[-1]] += n
        for f in set(frames):
            incl[f] += n
        # the innermost Arno frame: whose work this sample is, by package
        arno = next((f for f in reversed(frames) if f.startswith('arno/')), None)
        pkg['/'.join(arno.split('/')[:2]) if arno else 'outside Arno'] += n
    return total, own, incl, pkg
na, nb = pages(f"{out}/ab-A.txt"), pages(f"{out}/ab-B.txt")
ta, oa, ia, pa = load('A')
tb, ob, ib, pb = load('B')
k = lambda c, n: c * 1000 / n
print(f"pages A {na:.0f}, B {nb:.0f}; samples (1 ms of CPU each) per 1,000 pages: A {k(ta, na):.1f}, B {k(tb, nb):.1f}")
print("\nby the innermost Arno frame (per 1,000 pages):   A        B      B-A")
for p in sorted(set(pa) | set(pb), key=lambda p: -(pb[p] / nb + pa[p] / na)):
    print(f"  {p:44s} {k(pa[p], na):8.1f} {k(pb[p], nb):8.1f} {k(pb[p], nb) - k(pa[p], na):+8.1f}")
def table(title, a, b, n=30):
    print(f"\n{title} (per 1,000 pages):")
    diff = {m: k(b[m], nb) - k(a[m], na) for m in set(a) | set(b)}
    for m in sorted(diff, key=lambda m: -abs(diff[m]))[:n]:
        print(f"  {k(a[m], na):8.1f} {k(b[m], nb):8.1f} {diff[m]:+8.1f}  {m}")
table("own time, largest differences", oa, ob)
arno = lambda c: collections.Counter({m: v for m, v in c.items() if m.startswith('arno/')})
table("Arno methods with their callees, largest differences", arno(ia), arno(ib))
PY
echo "profiles: $out/ab-async-A.collapsed, $out/ab-async-B.collapsed (one stack a line: flame graphs, grep)"
