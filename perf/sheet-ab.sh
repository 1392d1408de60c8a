#!/usr/bin/env bash
# Two checkouts' page stylesheets against each other, without HTTP or Arno: the ceiling's full-text
# pages built by plain Saxon on one thread (arno.perf.pages.SheetCost), each checkout's stylesheets
# in JVMs of their own, PAIRS times in alternating order; first both sides' pages compared byte for
# byte. Prints each run's median CPU a page, then the medians and B/A. For a change to the sites'
# stylesheets (stylesheets/packages, sites/*/site.xsl), judged before it reaches the page path's A/B.
#
# Usage: perf/sheet-ab.sh ROOT_A ROOT_B [PAIRS]   (ROOT_x: a checkout or a copy of its sites/,
#   stylesheets/ and templates/; PAIRS 4). Environment: CONTENT (perf/target/pages/data-1000/content);
#   OPTS_A, OPTS_B: each side's JVM options (-Darno.store=true: the documents read from a store as
#   stored trees, not TinyTrees); CODE_A, CODE_B: the checkout whose classes each side runs (default
#   this one): one build's store against another's on the same stylesheet.
# Run it alone on the machine, as every benchmark.
set -euo pipefail
a_root="$(cd "$1" && pwd)"; b_root="$(cd "$2" && pwd)"; pairs="${3:-4}"
cd "$(dirname "$0")/.."
content="${CONTENT:-perf/target/pages/data-1000/content}"
[ -d "$content/journals" ] || { echo "no content in $content: run perf/run-pages.sh first (or CONTENT=folder)" >&2; exit 1; }
code_a="$(cd "${CODE_A:-.}" && pwd)"; code_b="$(cd "${CODE_B:-.}" && pwd)"
cp_a=$(cd "$code_a" && perf/classpath.sh); cp_b=$(cd "$code_b" && perf/classpath.sh)
content="$(cd "$content" && pwd)"
out=perf/target/pages
mkdir -p "$out"
# side (a or b), root, warm-up rounds, rounds, [pages file]
cost() {
  local cp opts; if [ "$1" = a ]; then cp=$cp_a; opts=${OPTS_A:-}; else cp=$cp_b; opts=${OPTS_B:-}; fi
  # shellcheck disable=SC2086 # the options are words
  java -Xmx1g $opts -cp "$cp" arno.perf.pages.SheetCost "$2" "$content" "$3" "$4" ${5:+"$5"}
}
cost a "$a_root" 0 1 "$out/sheet-a.html" >/dev/null
cost b "$b_root" 0 1 "$out/sheet-b.html" >/dev/null
if cmp -s "$out/sheet-a.html" "$out/sheet-b.html"; then echo "pages: byte-identical"; else echo "pages: DIFFERENT (cmp $out/sheet-a.html $out/sheet-b.html)"; fi
a=(); b=()
for i in $(seq 1 "$pairs"); do
  if [ $((i % 2)) = 1 ]; then a+=("$(cost a "$a_root" 8 6)"); b+=("$(cost b "$b_root" 8 6)")
  else b+=("$(cost b "$b_root" 8 6)"); a+=("$(cost a "$a_root" 8 6)"); fi
  echo "pair $i: A ${a[-1]} us, B ${b[-1]} us a page"
done
python3 - "${a[*]}" "${b[*]}" <<'PY'
import statistics, sys
a = [float(x) for x in sys.argv[1].split()]; b = [float(x) for x in sys.argv[2].split()]
print(f"A median {statistics.median(a):.1f} us, B median {statistics.median(b):.1f} us a page: "
      f"B/A {statistics.median(b) / statistics.median(a):.3f} (per pair {' '.join(f'{y / x:.3f}' for x, y in zip(a, b))})")
PY
