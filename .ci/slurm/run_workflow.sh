#!/usr/bin/env bash
# Run a Snakemake target through the real SLURM started by .ci/slurm/up.sh,
# using profiles/slurm, and prove it went through SLURM:
#   - snakemake exits 0 (under `timeout -k`, so a hang fails instead of waiting),
#   - its output has the plugin's line "Job N has been submitted with SLURM
#     jobid M (log: ...)" for at least --expect-jobs jobs,
#   - SLURM itself reports each of those job ids as COMPLETED (scontrol, or the
#     slurmctld log once the job has aged out).
# With --compare-local it then re-runs the same target locally (--forceall, no
# profile) and requires every output file's sha256 to be identical.
#
# Usage (from the repository root or anywhere):
#   .ci/slurm/run_workflow.sh [options] [--] SNAKEMAKE_ARGS... TARGETS...
# Options:
#   --compare-local     also run locally and compare output checksums
#   --compare PATH      compare these files/directories (repeatable); default:
#                       every existing output file listed by `snakemake --summary`
#   --expect-jobs N     minimum number of SLURM submissions (default 1)
#   --timeout SEC       time limit of each snakemake run (default 1800)
#   --after-slurm CMD   shell command run (bash -c) right after the SLURM run
#                       is verified, before any local run; must exit 0
#   --log FILE          tee the SLURM run's output here
#                       (default $GEOMARGIN_SLURM_STATE/run-slurm.log)
# Environment:
#   SNAKEMAKE              snakemake executable (default <repo>/.venv/bin/snakemake)
#   GEOMARGIN_SLURM_STATE  state dir of up.sh (default /tmp/geomargin-slurm)
#
# Examples:
#   .ci/slurm/run_workflow.sh --compare-local -- \
#       -s tests/fixtures/slurm_smoke/Snakefile -d /tmp/smoke results/summary.tsv
#   .ci/slurm/run_workflow.sh --compare-local -- \
#       --configfile config/ci.yaml results/enzyme_ranking.tsv
set -uo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PROFILE="$REPO/profiles/slurm"
STATE="${GEOMARGIN_SLURM_STATE:-/tmp/geomargin-slurm}"
SNAKEMAKE="${SNAKEMAKE:-$REPO/.venv/bin/snakemake}"
COMPARE=0
COMPARE_PATHS=()
EXPECT=1
TIMEOUT=1800
LOG=""
AFTER=""

die() { echo "[run_workflow] ERROR: $*" >&2; exit 1; }
note() { echo "[run_workflow] $*"; }

while [ $# -gt 0 ]; do
    case "$1" in
        --compare-local) COMPARE=1; shift ;;
        --compare) COMPARE_PATHS+=("$2"); shift 2 ;;
        --expect-jobs) EXPECT="$2"; shift 2 ;;
        --timeout) TIMEOUT="$2"; shift 2 ;;
        --log) LOG="$2"; shift 2 ;;
        --after-slurm) AFTER="$2"; shift 2 ;;
        --) shift; break ;;
        -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || die "no snakemake arguments/targets given (see --help)"
case "$EXPECT" in ''|*[!0-9]*) die "--expect-jobs must be a non-negative integer, got '$EXPECT'" ;; esac
case "$TIMEOUT" in ''|*[!0-9]*) die "--timeout must be seconds (integer), got '$TIMEOUT'" ;; esac
[ -x "$SNAKEMAKE" ] || die "snakemake not found at '$SNAKEMAKE' (set SNAKEMAKE=/path/to/snakemake)"
[ -f "$PROFILE/config.yaml" ] || die "profile missing: $PROFILE/config.yaml"
mkdir -p "$STATE"
LOG="${LOG:-$STATE/run-slurm.log}"

# --- SLURM must be up: otherwise fail fast instead of waiting on sbatch -------
command -v sinfo >/dev/null || die "sinfo not found: run .ci/slurm/up.sh first"
node_states="$(sinfo -h -o '%t' 2>&1)" || die "sinfo failed: $node_states (run .ci/slurm/up.sh first)"
echo "$node_states" | grep -qE '^(idle|mix|alloc)' \
    || die "no usable SLURM node (sinfo states: $node_states)"

# The job scripts run `python -m snakemake` from this venv on the node; make
# sure the venv is first on the PATH that sbatch exports to the job.
export PATH="$(dirname "$SNAKEMAKE"):$PATH"

# --- the SLURM run ---------------------------------------------------------------
# --max-threads: a rule asking for more CPUs than the node has would stay
# PENDING (Reason=PartitionConfig) for ever; cap threads at the node's CPUs.
NODE_CPUS="$(sinfo -h -o '%c' | sort -n | tail -n 1)"
SLURM_ARGS=(--profile "$PROFILE" --slurm-status-command squeue
            --slurm-init-seconds-before-status-checks 5 --slurm-keep-successful-logs
            --max-threads "$NODE_CPUS")
note "SLURM run: $SNAKEMAKE ${SLURM_ARGS[*]} $*"
t0=$(date +%s)
# --slurm-status-command squeue: no accounting storage here, so the plugin's
# default `sacct` check would fail and Snakemake would wait forever. It is in
# the profile too; repeating it keeps this harness honest if the profile changes.
# --slurm-init-seconds-before-status-checks 5: first status check after 5 s
# instead of 40 s (jobs here take seconds); MinJobAge (up.sh) stays far above.
: >"$LOG"
submitted_ids() {
    grep -oE 'has been submitted with SLURM jobid [0-9]+' "$LOG" 2>/dev/null | awk '{print $NF}'
}
# Watchdog: a job SLURM can never start (more memory/CPUs than the node has, bad
# partition/account) would keep Snakemake waiting until the timeout. Cancel such
# jobs: the plugin then reports them CANCELLED and Snakemake fails at once.
watchdog() {
    while sleep 5; do
        ids="$(submitted_ids | paste -sd, -)"
        [ -n "$ids" ] || continue
        squeue -h -t PD -j "$ids" -o '%i %r' 2>/dev/null \
            | grep -E 'PartitionConfig|PartitionNodeLimit|PartitionTimeLimit|BadConstraints|ReqNodeNotAvail|InvalidAccount|InvalidQOS' \
            | while read -r id reason; do
                echo "[run_workflow] ERROR: SLURM job $id can never start (Reason=$reason); cancelling it" >&2
                scancel "$id" || true
            done
    done
}
watchdog &
WATCHDOG=$!
timeout -k 30 "$TIMEOUT" "$SNAKEMAKE" "${SLURM_ARGS[@]}" "$@" 2>&1 | tee -a "$LOG"
rc=${PIPESTATUS[0]}
kill "$WATCHDOG" 2>/dev/null; wait "$WATCHDOG" 2>/dev/null
# A killed Snakemake leaves its jobs queued: cancel what is still pending/running.
left="$(submitted_ids | paste -sd, -)"
if [ -n "$left" ]; then
    squeue -h -t PD,R,CG -j "$left" -o '%i' 2>/dev/null | while read -r id; do
        note "cancelling leftover SLURM job $id"
        scancel "$id" || true
    done
fi
t1=$(date +%s)
note "SLURM run finished with exit code $rc in $((t1 - t0)) s (log: $LOG)"

# SLURM logs of the submitted jobs, printed when something went wrong.
show_slurm_logs() {
    grep -oE 'has been submitted with SLURM jobid [0-9]+ \(log: [^)]+\)' "$LOG" \
        | sed -E 's/.*\(log: ([^)]+)\)/\1/' | while read -r f; do
            for cand in "$f" "$(pwd)/$f"; do
                if [ -f "$cand" ]; then
                    echo "----- $cand -----" >&2
                    tail -n 60 "$cand" >&2
                    break
                fi
            done
        done
    [ -s "$STATE/log/slurmctld.log" ] && { echo "----- slurmctld.log (tail) -----" >&2; tail -n 30 "$STATE/log/slurmctld.log" >&2; }
}

if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    show_slurm_logs
    die "snakemake timed out after ${TIMEOUT}s (exit $rc)"
fi
if [ "$rc" != 0 ]; then
    show_slurm_logs
    die "snakemake failed (exit $rc)"
fi

# --- proof that the jobs went through SLURM ----------------------------------------
mapfile -t JOBIDS < <(grep -oE 'Job [0-9]+ has been submitted with SLURM jobid [0-9]+' "$LOG" \
    | awk '{print $NF}')
n=${#JOBIDS[@]}
if [ "$n" -lt "$EXPECT" ]; then
    die "expected at least $EXPECT SLURM submissions ('Job N has been submitted with SLURM jobid M'), found $n: the run did not go through SLURM (wrong profile path? nothing to do?)"
fi
bad=0
for id in "${JOBIDS[@]}"; do
    st="$(scontrol show job "$id" 2>/dev/null | grep -oE 'JobState=[A-Z_]+' | head -n 1 | cut -d= -f2)"
    if [ -z "$st" ]; then
        # Aged out of slurmctld (MinJobAge): fall back to the controller's log.
        if grep -qE "_job_complete: JobId=$id WEXITSTATUS 0" "$STATE/log/slurmctld.log" 2>/dev/null; then
            st="COMPLETED(log)"
        else
            st="UNKNOWN"
        fi
    fi
    case "$st" in
        COMPLETED*) ;;
        *) bad=1 ;;
    esac
    note "SLURM job $id: $st"
done
[ "$bad" = 0 ] || die "some SLURM jobs did not complete (see above)"
note "OK: $n job(s) ran through SLURM (job ids: ${JOBIDS[*]})"
if [ -n "$AFTER" ]; then
    note "after-slurm check: $AFTER"
    bash -c "$AFTER" || die "after-slurm check failed: $AFTER"
fi

[ "$COMPARE" = 1 ] || exit 0

# --- same target locally, same outputs ------------------------------------------------
# With -d/--directory the outputs are relative to that directory.
WD="."
prev=""
for a in "$@"; do
    case "$prev" in -d|--directory) WD="$a" ;; esac
    case "$a" in --directory=*) WD="${a#--directory=}" ;; esac
    prev="$a"
done
# Which files: --compare paths (relative to the workflow's directory), or every
# output file that `snakemake --summary` lists for the same arguments and that
# exists after the SLURM run (temp() outputs are gone by then). The same list is
# hashed after both runs.
if [ ${#COMPARE_PATHS[@]} -gt 0 ]; then
    FILES="$(cd "$WD" && for p in "${COMPARE_PATHS[@]}"; do
        if [ -d "$p" ]; then find "$p" -type f; else echo "$p"; fi
    done | LC_ALL=C sort -u)" || die "cannot enter workflow directory '$WD'"
else
    FILES="$("$SNAKEMAKE" --summary "$@" 2>/dev/null | awk -F'\t' 'NR > 1 && $1 != "" {print $1}' \
        | LC_ALL=C sort -u | (cd "$WD" && while read -r f; do [ -f "$f" ] && echo "$f"; done))"
fi
[ -n "$FILES" ] || die "no output files to compare (give --compare PATH)"
hash_outputs() {  # prints "sha256  path" per file, "MISSING  path" if absent
    (cd "$WD" && echo "$FILES" | while read -r f; do
        if [ -f "$f" ]; then sha256sum -- "$f"; else echo "MISSING  $f"; fi
    done)
}
hash_outputs >"$STATE/sha256-slurm.txt"
note "hashed $(wc -l <"$STATE/sha256-slurm.txt") output file(s) of the SLURM run"
if grep -q '^MISSING' "$STATE/sha256-slurm.txt"; then
    die "outputs missing after the SLURM run: $(grep '^MISSING' "$STATE/sha256-slurm.txt" | tr '\n' ' ')"
fi

LOCAL_LOG="${LOG%.log}-local.log"
note "local run: $SNAKEMAKE --cores all --forceall $*"
t0=$(date +%s)
timeout -k 30 "$TIMEOUT" "$SNAKEMAKE" --cores all --forceall "$@" 2>&1 | tee "$LOCAL_LOG"
rc=${PIPESTATUS[0]}
note "local run finished with exit code $rc in $(($(date +%s) - t0)) s (log: $LOCAL_LOG)"
[ "$rc" = 0 ] || die "local run failed (exit $rc)"
if grep -qE 'has been submitted with SLURM jobid' "$LOCAL_LOG"; then
    die "the local run submitted SLURM jobs: a profile is being picked up implicitly"
fi
hash_outputs >"$STATE/sha256-local.txt"
if ! diff -u "$STATE/sha256-slurm.txt" "$STATE/sha256-local.txt"; then
    die "SLURM and local outputs differ (sha256 lists above: - SLURM, + local)"
fi
note "OK: $(wc -l <"$STATE/sha256-local.txt") output file(s) byte-identical between SLURM and local runs"
