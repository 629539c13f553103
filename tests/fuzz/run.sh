#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) in build-fuzz and runs each for a bounded time.
#
#   tests/fuzz/run.sh [SECONDS]   each target SECONDS (default 60), corpus grown in build-fuzz/fuzz-work
#   tests/fuzz/run.sh --ci        each target 10 s on the committed corpus (what CI runs)
#
# New interesting inputs are kept in build-fuzz/fuzz-work/<target>/ (not committed; copy a useful
# one into tests/fuzz/corpus/<target>/ by hand). A crash, sanitizer report, timeout (> 10 s for one
# input) or out-of-memory (> 2 GB) stops that target, leaves crash-*/timeout-*/oom-* in
# build-fuzz/, and makes the script exit 1 after the other targets have run. Turn each into a
# regression file under tests/fuzz/regressions/<target>/ (replayed by fuzz_regression_test.cpp).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
seconds="${1:-60}"
[ "$seconds" = "--ci" ] && seconds=10
jobs="${LBSIM_JOBS:-2}"
build=build-fuzz

if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
    -DLBSIM_FUZZ=ON -DLBSIM_BENCH=OFF >/dev/null || exit 1
fi
cmake --build "$build" -j"$jobs" --target fuzz || exit 1

status=0
for t in scenario topology trace policy cql; do
  work="$build/fuzz-work/$t"
  mkdir -p "$work"
  [ "${1:-}" = "--ci" ] && rm -rf "$work" && mkdir -p "$work"
  log="$build/fuzz-$t.log"
  (cd "$build" && ./fuzz_"$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      "fuzz-work/$t" "$root/tests/fuzz/corpus/$t") >"$log" 2>&1
  rc=$?
  execs=$(grep -m1 '^stat::number_of_executed_units' "$log" | awk '{print $2}')
  cov=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+' || true)
  if [ $rc -eq 0 ]; then
    echo "fuzz_$t: ok, ${execs:-?} executions in ${seconds} s, ${cov:-cov: ?}, corpus $(ls "$work" | wc -l) new"
  else
    echo "fuzz_$t: FAILED (exit $rc) after ${execs:-?} executions; see $log"
    grep -E 'ERROR|not a ConfigError|runtime error|Test unit written' "$log" | head -5
    status=1
  fi
done
exit $status
