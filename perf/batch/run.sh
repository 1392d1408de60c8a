#!/usr/bin/env bash
# Issue 4's batch figures, in one session (see perf/RESULTS.md, "## Batch"):
#   1. XSLT throughput: N generated JATS-like articles → Atom entries, through Arno's batch
#      service (HTTP submit, status polled) against Saxon's own command line on the same folder
#      with -threads:2; outputs compared byte for byte;
#   2. Schematron throughput and peak heap: the same N articles checked by a 31-rule schema,
#      against Saxon's command line running the SchXslt-compiled schema;
#   3. memory: a batch of M inputs (hard links to the articles) with a 256 MB heap, the live
#      heap read after a full GC at every tenth of the job.
# Usage: perf/batch/run.sh [N=2000] [ROUNDS=3] [M=100000] (M=0 skips the memory check).
# Wait for an idle machine first.
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-2000}"
rounds="${2:-3}"
m="${3:-100000}"
out=perf/target/batch
mkdir -p "$out"
repo="$HOME/.m2/repository"
saxon="$repo/net/sf/saxon/Saxon-HE/12.9/Saxon-HE-12.9.jar:$repo/org/xmlresolver/xmlresolver/5.3.3/xmlresolver-5.3.3.jar:$repo/org/xmlresolver/xmlresolver/5.3.3/xmlresolver-5.3.3-data.jar"
cp="$out/classes:batch/target/classes:$saxon:$repo/commons-io/commons-io/2.18.0/commons-io-2.18.0.jar"
cp="$cp:$repo/name/dmaus/schxslt/schxslt/1.10.1/schxslt-1.10.1.jar"
cp="$cp:$repo/org/apache/tomcat/embed/tomcat-embed-core/11.0.25/tomcat-embed-core-11.0.25.jar"
cp="$cp:$repo/org/apache/tomcat/tomcat-annotations-api/11.0.25/tomcat-annotations-api-11.0.25.jar"

echo "== build arno-batch and the driver"
mvn -o -q -B -pl batch package -DskipTests
mkdir -p "$out/classes"
javac -d "$out/classes" -cp "batch/target/classes:$saxon" perf/src/main/java/arno/perf/batch/*.java

content="$out/content-$n"
if [ ! -d "$content/journals" ]; then
  echo "== generating $n articles (./arno generate)"
  # ./arno rebuilds the server first when sources changed; should that build fail (another
  # module mid-edit), the generator's compiled classes do the same job.
  ./arno generate --articles "$n" --out "$content" > /dev/null \
    || java -cp sites/target/classes arno.demo.Generator generate --articles "$n" --out "$content" > /dev/null
fi
root="$out/run-$n"
rm -rf "$root"
mkdir -p "$root/in"
# Saxon's -s:DIR reads one folder: link every article into one, named after its place.
find "$content/journals" -name article.xml | while read -r f; do
  name="${f#"$content/journals/"}"; name="${name%/article.xml}"; ln "$f" "$root/in/${name//\//-}.xml"
done
echo "   $(ls "$root/in" | wc -l) articles, $(du -sh --apparent-size "$root/in" | cut -f1)"

seconds() { local s e; s=$(date +%s%N); "$@" > /dev/null 2>&1; e=$(date +%s%N); echo "scale=3; ($e - $s) / 1000000000" | bc; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

echo "== Saxon command line, XSLT ($rounds runs): java net.sf.saxon.Transform -s:in -o:out-saxon -xsl:jats-to-atom.xsl -threads:2"
for i in $(seq 1 "$rounds"); do
  rm -rf "$root/out-saxon"; mkdir -p "$root/out-saxon"
  t=$(seconds java -cp "$saxon" net.sf.saxon.Transform -s:"$root/in" -o:"$root/out-saxon" -xsl:perf/batch/jats-to-atom.xsl -threads:2)
  echo "   run $i: $t s"; echo "$t" >> "$root/saxon-xslt.txt"
done
saxon_xslt=$(median < "$root/saxon-xslt.txt")

echo "== Arno batch service, XSLT ($rounds jobs in one server, -Xmx512m)"
java -Xmx512m -cp "$cp" arno.perf.batch.BatchBench xslt "$root" perf/batch/jats-to-atom.xsl "$rounds" 2> "$root/arno-xslt.log" | tee "$root/arno-xslt.txt"
cmp_result=$(diff -rq "$root/out-saxon" "$root/out-arno" > /dev/null && echo "identical" || echo "DIFFERENT")
echo "   outputs of Saxon and Arno: $cmp_result"

echo "== Saxon command line, Schematron ($rounds runs) over the SchXslt-compiled schema"
mkdir -p "$root/schxslt" && (cd "$root/schxslt" && unzip -o -q "$repo/name/dmaus/schxslt/schxslt/1.10.1/schxslt-1.10.1.jar" 'xslt/*')
java -cp "$saxon" net.sf.saxon.Transform -s:perf/batch/jats-checks.sch -xsl:"$root/schxslt/xslt/2.0/pipeline-for-svrl.xsl" -o:"$root/jats-checks.xsl"
for i in $(seq 1 "$rounds"); do
  rm -rf "$root/svrl-saxon"; mkdir -p "$root/svrl-saxon"
  t=$(seconds java -cp "$saxon" net.sf.saxon.Transform -s:"$root/in" -o:"$root/svrl-saxon" -xsl:"$root/jats-checks.xsl" -threads:2)
  echo "   run $i: $t s"; echo "$t" >> "$root/saxon-sch.txt"
done
saxon_sch=$(median < "$root/saxon-sch.txt")

echo "== Arno batch service, Schematron ($rounds jobs, -Xmx512m)"
java -Xmx512m -cp "$cp" arno.perf.batch.BatchBench schematron "$root" perf/batch/jats-checks.sch "$rounds" 2> "$root/arno-sch.log" | tee "$root/arno-sch.txt"

mem="$out/memory-$m"
if [ "$m" -gt 0 ]; then
  echo "== memory: $m inputs, -Xmx256m"
  rm -rf "$mem"
  java -cp "$cp" arno.perf.batch.BatchBench links "$root/in" "$mem/in" "$m"
  java -Xmx256m -Dbench.liveHeap=true -cp "$cp" arno.perf.batch.BatchBench xslt "$mem" perf/batch/jats-to-atom.xsl 1 2> "$mem/arno.log" | tee "$mem/arno.txt"
fi

echo
echo "== summary (medians over $rounds; Arno's warm jobs are rounds 2..$rounds)"
field() { grep -o " $1=[^ ]*" | cut -d= -f2; }
arno_cold=$(grep 'round=1 ' "$root/arno-xslt.txt" | field seconds)
arno_warm=$(grep -v 'round=1 ' "$root/arno-xslt.txt" | field seconds | median)
sch_cold=$(grep 'round=1 ' "$root/arno-sch.txt" | field seconds)
sch_warm=$(grep -v 'round=1 ' "$root/arno-sch.txt" | field seconds | median)
sch_peak=$(field peak-heap-mb < "$root/arno-sch.txt" | sort -n | tail -1)
rate() { echo "scale=1; $n / $1" | bc; }
ratio() { echo "scale=2; $1 / $2" | bc; }
printf 'XSLT        Saxon CLI %6.2f s %7.1f/s | Arno cold %6.2f s %7.1f/s (ratio %s) | Arno warm %6.2f s %7.1f/s (ratio %s) | outputs %s\n' \
  "$saxon_xslt" "$(rate "$saxon_xslt")" "$arno_cold" "$(rate "$arno_cold")" "$(ratio "$saxon_xslt" "$arno_cold")" \
  "$arno_warm" "$(rate "$arno_warm")" "$(ratio "$saxon_xslt" "$arno_warm")" "$cmp_result"
printf 'Schematron  Saxon CLI %6.2f s %7.1f/s | Arno cold %6.2f s %7.1f/s (ratio %s) | Arno warm %6.2f s %7.1f/s (ratio %s) | peak heap %s MB\n' \
  "$saxon_sch" "$(rate "$saxon_sch")" "$sch_cold" "$(rate "$sch_cold")" "$(ratio "$saxon_sch" "$sch_cold")" \
  "$sch_warm" "$(rate "$sch_warm")" "$(ratio "$saxon_sch" "$sch_warm")" "$sch_peak"
if [ "$m" -gt 0 ]; then grep RESULT "$mem/arno.txt" | sed 's/^RESULT/Memory     /'; fi
