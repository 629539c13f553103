#!/usr/bin/env bash
# The GNU parallel recipe of docs/cluster-sweeps.md: `parallel lbsim sweep ... --shard {}/N ::: $(seq 1 N)` then
# `lbsim merge` gives sweep.json byte-identical to one machine's `lbsim sweep`; running it again
# with --resume redoes nothing; and `lbsim merge` refuses a missing slice and a slice of another
# grid (exit 2, no output written).
#
#   tests/cluster/parallel_test.sh [LBSIM]        (default build/lbsim)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
lbsim="$(realpath "${1:-$root/build/lbsim}")"
start_time=$SECONDS
fail() {
  echo "parallel_test: FAIL: $*" >&2
  exit 1
}
trap 'fail "unexpected error (exit $?) at line $LINENO"' ERR
[ -x "$lbsim" ] || fail "no lbsim binary at $lbsim"
bash "$root/scripts/deps.sh" cluster
command -v parallel >/dev/null || fail "GNU parallel is not installed"

work="$(mktemp -d /tmp/lbsim-parallel.XXXXXX)"
trap 'rm -rf "$work"' EXIT
cd "$root"
grid=(configs/default.json --set client.threads=4,16,64,128,256,512 --set workload.ops=8000
  --set workload.warmup_ops=500 --seeds 2)
n=4

# The recipe: 4 slices on 2 job slots (one simulation thread each), then the merge.
parallel --will-cite --halt now,fail=1 -j 2 "$lbsim" sweep "${grid[@]}" --shard {}/$n --out "$work/sh" --jobs 1 --quiet \
  ::: $(seq 1 $n) >/dev/null || fail "a parallel slice failed"
"$lbsim" merge "$work/sh" --out "$work/sh/sweep.json" >/dev/null || fail "lbsim merge failed"
"$lbsim" sweep "${grid[@]}" --out "$work/one" --jobs 2 --quiet >/dev/null || fail "the local sweep failed"
cmp "$work/sh/sweep.json" "$work/one/sweep.json" || fail "merged parallel slices differ from the local sweep.json"
echo "parallel_test: $n slices through GNU parallel + lbsim merge == local sweep.json (cmp)"

# Again with --resume: every run is found and kept.
summaries="$(parallel --will-cite -j 2 "$lbsim" sweep "${grid[@]}" --shard {}/$n --out "$work/sh" --jobs 1 --resume \
  ::: $(seq 1 $n) | grep '^Sweep of')"
[ "$(grep -c ' 0 ran, ' <<<"$summaries")" = $n ] || fail "a resumed slice ran again: $summaries"

# Refusals, exit 2 and no output: a missing slice, and a slice of a different grid.
rc1=0 rc2=0
"$lbsim" merge "$work/sh/sweep.shard-1-of-$n.json" "$work/sh/sweep.shard-2-of-$n.json" --out "$work/partial.json" \
  2>"$work/err1" || rc1=$?
"$lbsim" sweep configs/default.json --set client.threads=4,16,64,128,256,999 --set workload.ops=8000 \
  --set workload.warmup_ops=500 --seeds 2 --shard 4/$n --out "$work/other" --jobs 2 --quiet >/dev/null
"$lbsim" merge "$work/sh/sweep.shard-1-of-$n.json" "$work/sh/sweep.shard-2-of-$n.json" \
  "$work/sh/sweep.shard-3-of-$n.json" "$work/other/sweep.shard-4-of-$n.json" --out "$work/mixed.json" \
  2>"$work/err2" || rc2=$?
[ $rc1 = 2 ] && grep -q "grid point(s) missing" "$work/err1" || fail "merge of 2 of $n slices: exit $rc1, $(cat "$work/err1")"
[ $rc2 = 2 ] && grep -q "comes from a different sweep" "$work/err2" || fail "merge of mixed grids: exit $rc2, $(cat "$work/err2")"
[ ! -e "$work/partial.json" ] && [ ! -e "$work/mixed.json" ] || fail "a refused merge wrote its output"
echo "parallel_test: --resume reran nothing; merge refuses a missing slice and a mixed grid (exit 2)"
echo "parallel_test: PASS in $((SECONDS - start_time)) s"
