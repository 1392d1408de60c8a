#!/usr/bin/env bash
# The guard (issue 25): the uncached full-text page path of this working tree (B) against an older
# commit (A), side by side under one load (perf/run-ab.sh), both from the store with page caches
# off; prints the median B/A ratio of pages/s as its last line:
#   guard: B/A pages/s = 0.97 (median of 6 rounds) against b67ac48
#
# Usage: perf/guard.sh COMMIT [ARTICLES] [WORKLOAD]
#   ARTICLES (1000): demo articles; WORKLOAD: default (the demo's articles) or large (50-150 KB
#   articles with many references, figures and tables: ./arno generate --size large).
# Environment: GUARD_MIN (0.97): the exit status is 1 below it, 0 at or above it, 2 when the run
#   could not be made; GUARD_WORKTREE (/work/guard-SHORT-SHA): where COMMIT's worktree is made or
#   reused; ROUNDS, PHASE, WARMUP: as perf/run-ab.sh (6, 10, 30); LAUNCHES (1): fresh pairs of
#   servers, the ratio then the median of the launches' medians.
# Each side serves content made by its own generator (an older commit may write another layout);
# the paths asked are this tree's. Run it alone on the machine, as every benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
here="$PWD"
fail() { echo "guard: $*" >&2; exit 2; }
[ $# -ge 1 ] || fail "usage: perf/guard.sh COMMIT [ARTICLES] [WORKLOAD]"
commit="$1"; articles="${2:-1000}"; workload="${3:-default}"
min="${GUARD_MIN:-0.97}"
case "$workload" in default|large) ;; *) fail "WORKLOAD is default or large, not '$workload'" ;; esac
[[ "$articles" =~ ^[1-9][0-9]*$ ]] || fail "ARTICLES is a positive number, not '$articles'"
sha=$(git rev-parse --verify --quiet "$commit^{commit}") || fail "no commit '$commit' in $(pwd)"
short=$(git rev-parse --short "$sha")
wt="${GUARD_WORKTREE:-/work/guard-$short}"
wt="$(realpath -m "$wt")"
[ "$wt" != /work/ab-base ] || fail "the guard's worktree must not be /work/ab-base (another run's); set GUARD_WORKTREE"

# COMMIT's worktree: made once, then reused while it stays at COMMIT.
if [ -d "$wt" ]; then
  [ "$(git -C "$wt" rev-parse HEAD 2>/dev/null)" = "$sha" ] || fail "$wt exists but is not a checkout of $short; remove it or set GUARD_WORKTREE"
else
  git worktree add --detach "$wt" "$sha" >/dev/null 2>&1 || fail "could not add a worktree of $short at $wt"
fi

# Class paths, built without installing: perf/classpath.sh where COMMIT has it; an older commit
# (before perf/classpath.sh) is packaged in its worktree, and run-ab.sh reads its classpath.txt.
log="$here/perf/target/guard-$short-build.log"
mkdir -p "$here/perf/target"
echo "guard: building $short in $wt and this tree (log: $log)"
if [ -x "$wt/perf/classpath.sh" ]; then
  cp_a=$(cd "$wt" && perf/classpath.sh 2>>"$log") || fail "$short did not build (perf/classpath.sh; see $log)"
else
  (cd "$wt" && mvn -q -B -o -pl perf -am package -DskipTests) >>"$log" 2>&1 \
    || fail "$short did not build offline (mvn -o -pl perf -am package; see $log); a dependency it needs may be missing from ~/.m2"
  [ -f "$wt/perf/target/classpath.txt" ] || fail "$short's perf module writes no perf/target/classpath.txt: run-ab.sh cannot start its server"
  cp_a="$wt/perf/target/classes:$(cat "$wt/perf/target/classpath.txt")"
fi
cp_b=$(perf/classpath.sh 2>>"$log") || fail "this tree did not build (see $log)"
perf/classpath.sh test >/dev/null 2>>"$log" || fail "this tree's test classes did not build (see $log)"
javap -cp "$cp_a" arno.perf.pages.PerfServer >/dev/null 2>&1 \
  || fail "$short has no arno.perf.pages.PerfServer: run-ab.sh cannot start its server"

# The content, made once per side, size and workload; each side's own generator writes it (into a
# folder renamed when complete, so that an interrupted run leaves nothing to be reused).
suffix=$([ "$workload" = large ] && echo "-large" || echo "")
gen_opts=$([ "$workload" = large ] && echo "--size large" || echo "")
generate() { # classpath folder options...
  local cp="$1" dir="$2"; shift 2
  rm -rf "$dir.part"
  java -cp "$cp" arno.server.Main generate --articles "$articles" "$@" --out "$dir.part" >/dev/null && mv "$dir.part" "$dir"
}
content_b="$here/perf/target/pages/data-$articles$suffix/content"
if [ ! -d "$content_b/journals" ]; then
  # shellcheck disable=SC2086 # the options are words
  generate "$cp_b" "$content_b" $gen_opts || fail "could not generate $content_b"
fi
list() { java -cp "$1" arno.perf.pages.PerfServer --list "$2" 2>/dev/null || true; }
content_a="$wt/perf/target/pages/data-$articles$suffix/content"
if [ ! -d "$content_a/journals" ]; then
  if [ "$workload" = default ] || java -cp "$cp_a" arno.server.Main generate --help 2>&1 | grep -q -- "--size"; then
    # shellcheck disable=SC2086
    generate "$cp_a" "$content_a" $gen_opts || fail "$short could not generate $content_a"
  elif [ "$(list "$cp_a" "$content_b")" = "$(list "$cp_b" "$content_b")" ]; then
    content_a="$content_b" # an older generator without --size, but the same layout: this tree's content
  else
    # The layout before the store's resource model (aNNNN/article.xml, figures under aNNNN/figures/),
    # which b67ac48 reads: COMMIT's own default content with this tree's large JATS in place of its
    # articles (the same front matter for the same seed; only the figures' hrefs differ).
    generate "$cp_a" "$content_a.large" || fail "$short could not generate $content_a.large"
    while IFS= read -r f; do
      d="$content_a.large/journals/${f%.xml}"
      [ -f "$d/article.xml" ] || fail "$short's content has no $d/article.xml for $f: the large workload cannot be run against it"
      sed -E 's#xlink:href="a[0-9]+/f#xlink:href="figures/f#g' "$content_b/journals/$f" > "$d/article.xml"
    done < <(cd "$content_b/journals" && find . -regextype posix-extended -regex '\./[^/]+/v[0-9]+/i[0-9]+/a[0-9]+\.xml' | sed 's#^\./##')
    mv "$content_a.large" "$content_a"
  fi
fi
# Both sides must serve the same pages: COMMIT's list of its content against this tree's.
[ -n "$(list "$cp_b" "$content_b")" ] && [ "$(list "$cp_a" "$content_a")" = "$(list "$cp_b" "$content_b")" ] \
  || fail "$short's content ($content_a) does not hold the same full-text pages as this tree's ($content_b)"
kb() { find "$1/journals" -mindepth 4 -maxdepth 5 -regex '.*/a[0-9]+\(\.xml\|/article\.xml\)' -printf '%s\n' | awk '{ s += $1 } END { printf "%.1f", s / NR / 1024 }'; }
echo "guard: $articles articles ($workload), JATS $(kb "$content_a") KB per article for $short, $(kb "$content_b") KB here"

# LAUNCHES fresh pairs of servers, one run-ab.sh each: C2 compiles the page path differently from
# one JVM to the next, and one launch's CPU a page moved by up to a fifth for the same build
# (perf/RESULTS.md, thirteenth session), more than the rounds inside it ever do.
launches="${LAUNCHES:-1}"
[[ "$launches" =~ ^[1-9][0-9]*$ ]] || fail "LAUNCHES is a positive number, not '$launches'"
ratios=()
for launch in $(seq 1 "$launches"); do
  out="$here/perf/target/guard-$short-ab$([ "$launches" = 1 ] || echo "-$launch").log"
  [ "$launches" = 1 ] || echo "guard: launch $launch of $launches"
  CONTENT_A="$content_a" CONTENT_B="$content_b" perf/run-ab.sh "-Darno.store=true" "-Darno.store=true" "$wt" . | tee "$out"
  # A page that was not a 200 (a server that did not start, a page the old build lacks) fails the run.
  ko=$(grep '^> KO ' perf/target/pages/ab-gatling.log | tail -1 | awk '{ gsub(",", "", $3); print $3 }')
  [ "${ko:-?}" = 0 ] || fail "${ko:-an unknown number of} requests failed (not 200) in the run: see perf/target/pages/ab-gatling.log, ab-a.log and ab-b.log"
  r=$(sed -n 's/^B\/A pages\/s per round: .*median \([0-9.]*\).*/\1/p' "$out")
  [ -n "$r" ] || fail "run-ab.sh printed no ratio (see $out)"
  ratios+=("$r")
done
ratio=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
if [ "$launches" = 1 ]; then
  echo "guard: B/A pages/s = $(printf '%.2f' "$ratio") (median of ${ROUNDS:-6} rounds) against $short"
else
  echo "guard: B/A pages/s = $(printf '%.2f' "$ratio") (median of $launches launches, each the median of ${ROUNDS:-6} rounds: $(printf '%.2f ' "${ratios[@]}")) against $short"
fi
awk -v r="$ratio" -v m="$min" 'BEGIN { exit !(r >= m) }' || exit 1
