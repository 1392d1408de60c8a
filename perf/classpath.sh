#!/usr/bin/env bash
# Builds the modules' classes (no install) and prints the class path the benchmarks run with:
# perf's and every module's target/classes, then their dependencies, without the Arno jars of the
# local repository (whatever was installed last; the module folders replace them).
#   CP=$(perf/classpath.sh)            then   java -cp "$CP" arno.perf....
#   CP=$(perf/classpath.sh test)       the same with the test classes and test scope (Gatling)
set -euo pipefail
cd "$(dirname "$0")/.."
scope="${1:-runtime}"
# test-compile for both: store, pipeline and server resolve xml's test-jar, which a reactor build
# finds in xml/target/test-classes only once that phase ran (a warm local repository hid this).
goal=test-compile
# One reactor run: the class path is then resolved from the modules' current poms (a standalone run
# would read the Arno poms of the local repository, whatever was installed last, and miss new dependencies).
mvn -q -B -o -pl perf -am "$goal" dependency:build-classpath -DskipTests \
    -Dmdep.outputFile=target/classpath-$scope.txt -Dmdep.includeScope=$scope >&2
cp="$PWD/perf/target/classes"
[ "$scope" = test ] && cp="$PWD/perf/target/test-classes:$cp"
for m in xml http testkit pipeline filters templates stylesheets sites cache store store-atom fulltext store-http batch cluster server; do cp="$cp:$PWD/$m/target/classes"; done
# TestPostgres, which ResyncBench starts its PostgreSQL with
cp="$cp:$PWD/cluster/target/test-classes"
echo "$cp:$(tr ':' '\n' < "perf/target/classpath-$scope.txt" | grep -v '/dev/arno/' | paste -sd:)"
