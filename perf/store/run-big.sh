#!/usr/bin/env bash
# Issue 3, item 6: a document larger than the heap loads, is queried and is transformed to output,
# each step in its own JVM with -Xmx64m. Usage: perf/store/run-big.sh [MB=1100]
# Needs about 3x MB of free disk under perf/target/store-big.
set -euo pipefail
cd "$(dirname "$0")/../.."
mb="${1:-1100}"
out=perf/target/store-big
mkdir -p "$out"
mvn -o -q -B -pl store,perf package -DskipTests
cp="perf/target/classes:$(cat perf/target/classpath.txt)"
heap=-Xmx64m

xml="$out/abstracts-$mb.xml"
if [ ! -f "$xml" ]; then
  echo "== java -cp \$cp arno.perf.store.BigDocument generate $xml $mb"
  java -cp "$cp" arno.perf.store.BigDocument generate "$xml" "$mb"
fi
rm -rf "$out/data"
echo "== java $heap -cp \$cp arno.server.Main store load $xml --data $out/data --map-size 16G"
/usr/bin/time -f "load: %e s wall, %M KB max RSS" java $heap -cp "$cp" arno.server.Main store load "$xml" --data "$out/data" --map-size 16G
echo "== java $heap ... arno.server.Main query --data $out/data --context /$(basename "$xml") 'count(//doc), count(//sublink[@linktype = \"rare\"])'"
/usr/bin/time -f "query: %e s wall, %M KB max RSS" java $heap -cp "$cp" arno.server.Main query --data "$out/data" \
  --context "/$(basename "$xml")" 'count(//doc), count(//sublink[@linktype = "rare"])'
echo "== java $heap ... BigDocument transform $out/data /$(basename "$xml") perf/store/identity.xsl $out/transformed.xml"
/usr/bin/time -f "transform: %e s wall, %M KB max RSS" java $heap -cp "$cp" arno.perf.store.BigDocument transform "$out/data" \
  "/$(basename "$xml")" perf/store/identity.xsl "$out/transformed.xml"
echo "== java $heap ... BigDocument open $out/data /$(basename "$xml") 2000"
java $heap -cp "$cp" arno.perf.store.BigDocument open "$out/data" "/$(basename "$xml")" 2000
echo "== java $heap ... arno.server.Main store check --data $out/data"
/usr/bin/time -f "check: %e s wall, %M KB max RSS" java $heap -cp "$cp" arno.server.Main store check --data "$out/data"
du -sh --apparent-size "$xml" "$out/transformed.xml"
du -sh "$out/data/store"
