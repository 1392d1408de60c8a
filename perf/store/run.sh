#!/usr/bin/env bash
# Issue 3's store figures, in one run (wait for an idle machine first):
#   1. JMH: stored tree vs TinyTree (open, walk, identity XSLT, //x[@y='z'] scan) on a 20 MB flat
#      document and a 100 KB article; medians and ratios printed by perf/store/summarize.py;
#   2. the walk and XSLT ratios again, TinyTree and stored alternating round by round
#      (arno.perf.store.Pairs), which a noisy machine skews less than separate JMH forks;
#   3. disk size against XML size, heap retained (arno.perf.store.StoreSizes).
# The 1 GB / -Xmx64m run is perf/store/run-big.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=perf/target/store
mkdir -p "$out"
mvn -o -q -B -pl store,perf package -DskipTests
cp="perf/target/classes:$(cat perf/target/classpath.txt)"
echo "== java -cp \$cp org.openjdk.jmh.Main 'arno.perf.store.StoreBench' -rf json -rff $out/jmh.json"
java -cp "$cp" org.openjdk.jmh.Main 'arno.perf.store.StoreBench' -rf json -rff "$out/jmh.json" > "$out/jmh.log" 2>&1
python3 perf/store/summarize.py "$out/jmh.json"
echo "== java -Xmx2g -cp \$cp arno.perf.store.Pairs 60"
java -Xmx2g -cp "$cp" arno.perf.store.Pairs 60
echo "== java -Xmx1g -cp \$cp arno.perf.store.StoreSizes"
java -Xmx1g -cp "$cp" arno.perf.store.StoreSizes
