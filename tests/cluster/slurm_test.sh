#!/usr/bin/env bash
# A sweep on a real, one-node Slurm cluster started here (munged, slurmctld, slurmd as plain
# background processes: no systemd, no cgroups, so it also runs in a container), through
# scripts/slurm-sweep:
#   1. a 4-shard array job + its afterok merge job give a sweep.json byte-identical to a local
#      `lbsim sweep` of the same grid;
#   2. one array task cancelled (scancel) mid-slice, then the sweep submitted again: it completes,
#      sweep.json is byte-identical again, and the runs finished before the cancellation are kept
#      (same inode and mtime, and each shard's log counts them as reused), not redone.
# If Slurm cannot be started this FAILS (exit 1); it never skips.
#
#   tests/cluster/slurm_test.sh [LBSIM]        (default build/lbsim; LBSIM_KEEP=1 keeps the temp folder)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
lbsim="$(realpath "${1:-$root/build/lbsim}")"
[ -x "$lbsim" ] || { echo "slurm_test: FAIL: no lbsim binary at $lbsim" >&2; exit 1; }
start_time=$SECONDS

# Packages the way scripts/deps.sh installs everything: only the missing ones, sudo when not root.
bash "$root/scripts/deps.sh" cluster

work="$(mktemp -d /tmp/lbsim-slurm.XXXXXX)"
chmod 700 "$work"
pids=()
cleanup() {
  local rc=$?
  # Stop only the daemons started here, by their process ids.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ "${LBSIM_KEEP:-0}" = 1 ] || [ $rc -ne 0 ]; then
    echo "slurm_test: files kept in $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
fail() {
  echo "slurm_test: FAIL: $*" >&2
  for f in "$work"/log/*.log; do
    [ -f "$f" ] && { echo "--- $f (last lines)" >&2; tail -n 15 "$f" >&2; }
  done
  exit 1
}
trap 'fail "unexpected error (exit $?) at line $LINENO"' ERR
say() { echo "slurm_test: [$((SECONDS - start_time)) s] $*"; }

# --- a one-node cluster ----------------------------------------------------------------------
mkdir -p "$work"/{munge,log,state,spool,run}
chmod 700 "$work/munge"
user="$(id -un)"
host="$(hostname -s)"
cpus="$(nproc)"
free_port() {  # the first port from $1 nobody listens on (127.0.0.1)
  local p=$1
  while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do p=$((p + 1)); done
  echo "$p"
}
ctld_port="$(free_port 16817)"
slurmd_port="$(free_port $((ctld_port + 1)))"

# A fresh key and socket: a munged already running on this machine (the system's) is not touched.
dd if=/dev/urandom of="$work/munge/munge.key" bs=1 count=1024 status=none
chmod 400 "$work/munge/munge.key"
munged -F --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
  --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/munged.seed" \
  --log-file="$work/log/munged.log" >"$work/log/munged.out.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$work/munge/munge.socket" ] && break; sleep 0.1; done
[ -S "$work/munge/munge.socket" ] || fail "munged did not start"
munge --socket="$work/munge/munge.socket" -n | unmunge --socket="$work/munge/munge.socket" >/dev/null ||
  fail "munge cannot encode and decode a credential"

export SLURM_CONF="$work/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=lbsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1
ReturnToService=2
MinJobAge=600
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=256 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -i -f "$SLURM_CONF" >"$work/log/slurmctld.out.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/log/slurmd.out.log" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 300); do
  state="$(sinfo -h -n "$host" -o %t 2>/dev/null || true)"
  [ "$state" = idle ] && break
  sleep 0.1
done
[ "$state" = idle ] || fail "Slurm did not come up: node $host is '${state:-unreachable}' after 30 s"
say "Slurm $(sinfo -V | awk '{print $2}') is up: node $host, $cpus CPUs, slurmctld port $ctld_port"

# --- helpers ---------------------------------------------------------------------------------
job_state() { scontrol show job "$1" -o 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n1 | cut -d= -f2; }
wait_job() {  # wait_job ID TIMEOUT_S: until the job leaves PENDING/RUNNING; prints its final state
  local id=$1 limit=$2 s
  for ((t = 0; t < limit * 10; t++)); do
    s="$(job_state "$id")"
    case "$s" in PENDING|RUNNING|CONFIGURING|COMPLETING|REQUEUED|RESIZING|SUSPENDED|"") sleep 0.1 ;; *) echo "$s"; return 0 ;; esac
  done
  echo "TIMEOUT($s)"
}
array_active() { squeue -h -r -j "$1" -o %i 2>/dev/null | grep -q .; }
submit() {  # submit OUT SWEEP-ARGS...: sets array_job and merge_job
  local out=$1
  shift
  local ids
  ids="$("$root/scripts/slurm-sweep" --lbsim "$lbsim" --shards 4 --out "$out" --submit -- "$@")" ||
    fail "scripts/slurm-sweep --submit failed"
  array_job="$(sed -n 's/^array_job=//p' <<<"$ids")"
  merge_job="$(sed -n 's/^merge_job=//p' <<<"$ids")"
  [[ "$array_job" =~ ^[0-9]+$ && "$merge_job" =~ ^[0-9]+$ ]] || fail "no job ids in: $ids"
}
local_sweep() {  # local_sweep OUT SWEEP-ARGS...: the single-machine reference
  local out=$1
  shift
  "$lbsim" sweep "$@" --out "$out" --jobs 2 --quiet >/dev/null || fail "local lbsim sweep failed"
}
cd "$root"

# --- 1. array job + merge job == local sweep -------------------------------------------------
grid1=(configs/default.json --set client.threads=4,16,64,128,256 --set workload.ops=8000
  --set workload.warmup_ops=500 --seeds 2)
submit "$work/sweep1" "${grid1[@]}"
say "submitted array job $array_job (4 tasks) and merge job $merge_job"
s="$(wait_job "$merge_job" 60)"
[ "$s" = COMPLETED ] || fail "merge job $merge_job ended $s (array job: $(job_state "$array_job"))"
for i in 1 2 3 4; do
  s="$(job_state "${array_job}_$i")"
  [ "$s" = COMPLETED ] || fail "array task ${array_job}_$i is $s"
done
local_sweep "$work/local1" "${grid1[@]}"
cmp "$work/sweep1/sweep.json" "$work/local1/sweep.json" ||
  fail "the Slurm sweep.json differs from the local lbsim sweep's"
say "1. sweep.json from 4 array tasks + merge is byte-identical to a local sweep"

# --- 2. cancel one task mid-slice, submit again: completes, nothing finished is redone -------
# 4 points x 3 policies: each shard runs its point's 3 runs one after another (--jobs 1), about
# a second each, so a task is caught between its first report and its slice file.
grid2=(configs/default.json --set client.threads=8,16,32,64 --set workload.ops=1500000
  --set workload.warmup_ops=1000)
out2="$work/sweep2"
submit "$out2" "${grid2[@]}"
say "submitted array job $array_job and merge job $merge_job (runs of about a second)"
count_reports() { find "$out2/p$(printf %03d $(($1 - 1)))" -name 'seed-*.json' 2>/dev/null | wc -l || true; }
# Waits (30 s at most) for an array task that is RUNNING with at least one finished report but no
# slice file yet, then runs `$@ JOBID_TASK` on it (scancel, scontrol requeue); sets $victim.
catch_running_task() {
  victim=""
  local t i
  for ((t = 0; t < 600; t++)); do
    for i in 1 2 3 4; do
      if [ "$(count_reports "$i")" -ge 1 ] && [ ! -e "$out2/sweep.shard-$i-of-4.json" ] &&
        [ "$(squeue -h -j "${array_job}_$i" -o %T 2>/dev/null)" = RUNNING ]; then
        "$@" "${array_job}_$i" || fail "$* ${array_job}_$i failed"
        victim=$i
        return
      fi
    done
    sleep 0.05
  done
  fail "no array task was caught running with a finished report within 30 s"
}
catch_running_task scancel
say "cancelled array task ${array_job}_$victim after its first report"
for ((t = 0; t < 600; t++)); do array_active "$array_job" || break; sleep 0.1; done
array_active "$array_job" && fail "array job $array_job still has tasks after 60 s"
s="$(job_state "${array_job}_$victim")"
[ "$s" = CANCELLED ] || fail "the cancelled task ${array_job}_$victim is $s"
[ ! -e "$out2/sweep.shard-$victim-of-4.json" ] || fail "the cancelled task wrote its slice anyway (cancelled too late)"
# Its afterok dependency can never be met now: the merge job waits forever; cancel it.
s="$(job_state "$merge_job")"
[ "$s" = PENDING ] || fail "merge job $merge_job is $s after a failed array task (expected PENDING)"
scancel "$merge_job"
[ ! -e "$out2/sweep.json" ] || fail "sweep.json exists after a cancelled task"

# The finished reports, by inode and modification time (ns), and how many each shard has.
snapshot() { find "$out2" -name 'seed-*.json' -printf '%p %i %T@\n' | sort; }
before="$(snapshot)"
total_before="$(wc -l <<<"$before")"
declare -A kept
for i in 1 2 3 4; do kept[$i]="$(grep -c "/p$(printf %03d $((i - 1)))/" <<<"$before" || true)"; done
[ "${kept[$victim]}" -ge 1 ] && [ "${kept[$victim]}" -lt 3 ] ||
  fail "the cancelled shard has ${kept[$victim]} of 3 reports (expected 1 or 2)"
say "after the cancellation: $total_before of 12 reports, shard $victim has ${kept[$victim]} of 3"

submit "$out2" "${grid2[@]}"
say "submitted again: array job $array_job, merge job $merge_job"
s="$(wait_job "$merge_job" 90)"
[ "$s" = COMPLETED ] || fail "merge job $merge_job of the resubmission ended $s"
after="$(snapshot)"
[ "$(wc -l <<<"$after")" = 12 ] || fail "expected 12 reports after the resubmission, found $(wc -l <<<"$after")"
# Every report present before is untouched: same path, inode and mtime.
missing_lines="$(comm -23 <(echo "$before") <(echo "$after"))"
[ -z "$missing_lines" ] || fail "finished reports were rewritten by the resubmission:
$missing_lines"
# Each shard's log (appended across both submissions) ends with what lbsim counted.
for i in 1 2 3 4; do
  line="$(grep '^Sweep of' "$out2/slurm/shard-$i.log" | tail -n1)"
  want=", $((3 - kept[$i])) ran, ${kept[$i]} reused)"
  [[ "$line" == *"$want"* ]] || fail "shard $i's log says '$line', expected '$want'"
done
local_sweep "$work/local2" "${grid2[@]}"
cmp "$out2/sweep.json" "$work/local2/sweep.json" ||
  fail "the resumed Slurm sweep.json differs from the local lbsim sweep's"
say "2. after scancel + resubmission: sweep.json byte-identical, the $total_before finished runs kept (inode, mtime, logs)"

# --- 3. a task requeued mid-slice restarts, keeps its finished runs; the merge still follows ---
out2="$work/sweep3"
submit "$out2" "${grid2[@]}"
say "submitted array job $array_job and merge job $merge_job"
catch_running_task scontrol requeue
say "requeued array task ${array_job}_$victim after its first report"
# Slurm holds a requeued job back for a while (EligibleTime = requeue + 2 min in 22.05): make it
# eligible at once so the test stays short. The restart itself is Slurm's.
for ((t = 0; t < 300; t++)); do
  [ "$(job_state "${array_job}_$victim")" = PENDING ] && break
  sleep 0.1
done
[ "$(job_state "${array_job}_$victim")" = PENDING ] || fail "the requeued task is $(job_state "${array_job}_$victim"), not PENDING"
scontrol update JobId="${array_job}_$victim" StartTime=now || fail "cannot make the requeued task eligible"
s="$(wait_job "$merge_job" 60)"
[ "$s" = COMPLETED ] || fail "merge job $merge_job ended $s after a requeued task; the task: $(scontrol show job "${array_job}_$victim")"
log="$out2/slurm/shard-$victim.log"
grep -q "restart 1 at" "$log" || fail "shard $victim's log shows no restart: $(grep '^==' "$log")"
line="$(grep '^Sweep of' "$log" | tail -n1)"
[[ "$line" =~ ,\ ([0-9]+)\ ran,\ ([0-9]+)\ reused\) ]] || fail "shard $victim's log ends without a summary"
ran=${BASH_REMATCH[1]} reused=${BASH_REMATCH[2]}
[ "$reused" -ge 1 ] && [ $((ran + reused)) = 3 ] ||
  fail "the requeued shard $victim ran $ran and reused $reused of 3 runs (expected at least 1 reused)"
cmp "$out2/sweep.json" "$work/local2/sweep.json" ||
  fail "the Slurm sweep.json with a requeued task differs from the local lbsim sweep's"
say "3. after scontrol requeue: the task restarted, reused $reused of its 3 runs, sweep.json byte-identical"
say "PASS"
