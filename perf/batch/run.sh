#!/usr/bin/env bash
# Issue 4's batch figures, in one session (see perf/RESULTS.md, "## Batch"):
#   1. XSLT throughput: N generated JATS-like articles → Atom entries through Arno's batch
#      service (HTTP submit, status polled), against Saxon's own command line on the same folder
#      with -threads:2; outputs compared byte for byte;
#   2. Schematron throughput and peak heap: the same N articles checked by a 31-rule schema,
#      against Saxon's command line running the SchXslt-compiled schema with -threads:2;
#   3. memory: a batch of M inputs (hard links to the articles) with a 256 MB heap, the live
#      heap read after a full GC at every tenth of the job.
# Each Arno job runs right after a Saxon command-line run on the same folder (the driver starts
# it), so every pair sees the same machine; the ratio is Saxon's time over Arno's, per pair.
# Round 1 is Arno cold (first compile, JIT); later rounds are the same server warm, as in
# production. Saxon's figure includes its JVM start, as its users see it.
# Usage: perf/batch/run.sh [N=2000] [ROUNDS=5] [M=100000] (M=0 skips the memory check).
# Wait for an idle machine first.
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-2000}"
rounds="${2:-5}"
m="${3:-100000}"
out=perf/target/batch
mkdir -p "$out"
repo="$HOME/.m2/repository"
saxon="$repo/net/sf/saxon/Saxon-HE/12.9/Saxon-HE-12.9.jar:$repo/org/xmlresolver/xmlresolver/5.3.3/xmlresolver-5.3.3.jar:$repo/org/xmlresolver/xmlresolver/5.3.3/xmlresolver-5.3.3-data.jar"
cp="$out/classes:batch/target/classes:xml/target/classes:$saxon:$repo/commons-io/commons-io/2.18.0/commons-io-2.18.0.jar"
cp="$cp:$repo/name/dmaus/schxslt/schxslt/1.10.1/schxslt-1.10.1.jar"
cp="$cp:$repo/org/apache/tomcat/embed/tomcat-embed-core/11.0.25/tomcat-embed-core-11.0.25.jar"
cp="$cp:$repo/org/apache/tomcat/tomcat-annotations-api/11.0.25/tomcat-annotations-api-11.0.25.jar"

echo "== build arno-batch and the driver"
mvn -o -q -B -pl batch -am package -DskipTests
mkdir -p "$out/classes"
javac -d "$out/classes" -cp "batch/target/classes:xml/target/classes:$saxon" perf/src/main/java/arno/perf/batch/*.java

content="$out/content-$n"
if [ ! -d "$content/journals" ]; then
  echo "== generating $n articles (./arno generate)"
  ./arno generate --articles "$n" --out "$content" > /dev/null
fi
root="$(pwd)/$out/run-$n"
rm -rf "$root"
mkdir -p "$root/in"
# Saxon's -s:DIR reads one folder: link every article into one, named after its place.
# Articles' JATS variants lie at journals/J/vV/iI/aNNNN.xml (tables' XML one level deeper).
find "$content/journals" -mindepth 4 -maxdepth 4 -name 'a[0-9]*.xml' | while read -r f; do
  name="${f#"$content/journals/"}"; name="${name%.xml}"; ln "$f" "$root/in/${name//\//-}.xml"
done
echo "   $(ls "$root/in" | wc -l) articles, $(du -sh --apparent-size "$root/in" | cut -f1); load average $(cut -d' ' -f1-3 /proc/loadavg)"

xslt="$(pwd)/perf/batch/jats-to-atom.xsl"
echo "== XSLT, $rounds rounds: Saxon 'java net.sf.saxon.Transform -s:in -o:out-saxon -xsl:jats-to-atom.xsl -threads:2', then an Arno job (-Xmx512m)"
java -Xmx512m -cp "$cp" \
  -Dbench.baseline="java -cp $saxon net.sf.saxon.Transform -s:$root/in -o:$root/out-saxon -xsl:$xslt -threads:2" \
  -Dbench.baselineOut="$root/out-saxon" \
  arno.perf.batch.BatchBench xslt "$root" "$xslt" "$rounds" 2> "$root/arno-xslt.log" | tee "$root/arno-xslt.txt"
cmp_result=$(diff -rq "$root/out-saxon" "$root/out-arno" > /dev/null && echo "identical" || echo "DIFFERENT")
echo "   outputs of Saxon and Arno: $cmp_result"

echo "== Schematron, $rounds rounds: Saxon on the SchXslt-compiled schema with -threads:2, then an Arno job (-Xmx512m)"
mkdir -p "$root/schxslt" && (cd "$root/schxslt" && unzip -o -q "$repo/name/dmaus/schxslt/schxslt/1.10.1/schxslt-1.10.1.jar" 'xslt/*')
java -cp "$saxon" net.sf.saxon.Transform -s:perf/batch/jats-checks.sch -xsl:"$root/schxslt/xslt/2.0/pipeline-for-svrl.xsl" -o:"$root/jats-checks.xsl"
java -Xmx512m -cp "$cp" \
  -Dbench.baseline="java -cp $saxon net.sf.saxon.Transform -s:$root/in -o:$root/svrl-saxon -xsl:$root/jats-checks.xsl -threads:2" \
  -Dbench.baselineOut="$root/svrl-saxon" \
  arno.perf.batch.BatchBench schematron "$root" perf/batch/jats-checks.sch "$rounds" 2> "$root/arno-sch.log" | tee "$root/arno-sch.txt"

mem="$out/memory-$m"
if [ "$m" -gt 0 ]; then
  echo "== memory: $m inputs, -Xmx256m"
  rm -rf "$mem"
  java -cp "$cp" arno.perf.batch.BatchBench links "$root/in" "$mem/in" "$m"
  java -Xmx256m -Dbench.liveHeap=true -cp "$cp" arno.perf.batch.BatchBench xslt "$mem" "$xslt" 1 2> "$mem/arno.log" | tee "$mem/arno.txt"
fi

echo
echo "== summary: medians; cold = round 1, warm = rounds 2..$rounds; ratio = Saxon time / Arno time, per pair"
field() { grep -o " $1=[^ ]*" | cut -d= -f2; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
summary() { # label file
  local f="$2"
  printf '%-10s Saxon CLI %6.2f s %6.1f/s | Arno cold %6.2f s %6.1f/s ratio %s | Arno warm %6.2f s %6.1f/s ratio %s | peak heap %s MB\n' "$1" \
    "$(field baseline-seconds < "$f" | median)" "$(field baseline-rate < "$f" | median)" \
    "$(grep 'round=1 ' "$f" | field seconds)" "$(grep 'round=1 ' "$f" | field rate)" "$(grep 'round=1 ' "$f" | field ratio)" \
    "$(grep -v 'round=1 ' "$f" | field seconds | median)" "$(grep -v 'round=1 ' "$f" | field rate | median)" \
    "$(grep -v 'round=1 ' "$f" | field ratio | median)" "$(field peak-heap-mb < "$f" | sort -n | tail -1)"
}
summary XSLT "$root/arno-xslt.txt"
echo "           outputs $cmp_result"
summary Schematron "$root/arno-sch.txt"
if [ "$m" -gt 0 ]; then grep RESULT "$mem/arno.txt" | sed 's/^RESULT/Memory    /'; fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
