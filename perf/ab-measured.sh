# Sourced by the profiling wrappers of perf/run-ab.sh (run-ab-perf.sh, run-ab-async.sh): starts
# run-ab.sh with the caller's arguments in the background, its output in $1, and returns once its
# measured turns have started (run-ab.sh touches perf/target/pages/ab-measuring then), plus 2 s.
# Sets run (run-ab.sh's pid), pa and pb (the two servers' pids, by their ports). Expects out and
# warmup to be set.
ab_measured() { # output-file run-ab.sh-arguments...
  local log="$1"; shift
  rm -f "$out/ab-A.txt" "$out/ab-B.txt" "$out/ab-measuring"
  perf/run-ab.sh "$@" > "$log" 2>&1 &
  run=$!
  port_pid() { ss -ltnp | awk -v p=":$1" '$4 ~ p"$"' | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2 || true; }
  pa=""; pb=""
  for _ in $(seq 1 240); do pa=$(port_pid 18081); pb=$(port_pid 18082); [ -n "$pa" ] && [ -n "$pb" ] && break; sleep 0.5; done
  [ -n "$pa" ] && [ -n "$pb" ] || { echo "the servers did not start (see $out/ab-a.log, $out/ab-b.log)" >&2; wait $run; exit 2; }
  for _ in $(seq 1 $((5 * (2 * warmup + 120)))); do [ -e "$out/ab-measuring" ] && break
    kill -0 "$run" 2>/dev/null || break; sleep 0.2; done
  sleep 2
}
