#!/usr/bin/env bash
# Stop the single-node SLURM started by .ci/slurm/up.sh, by the PIDs it
# recorded (never by process name). Daemons that are already gone are fine.
# Exit status 0 unless a recorded daemon refuses to die even after SIGKILL.
set -uo pipefail

STATE="${GEOMARGIN_SLURM_STATE:-/tmp/geomargin-slurm}"
rc=0
for d in slurmd slurmctld munged; do
    f="$STATE/$d.pid"
    if [ ! -s "$f" ]; then
        echo "[slurm-down] $d: no PID file, nothing to stop"
        continue
    fi
    pid="$(cat "$f")"
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "[slurm-down] $d (pid $pid) already gone"
        rm -f "$f"
        continue
    fi
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.2
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "[slurm-down] $d (pid $pid) ignored SIGTERM for 10s; sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        sleep 0.5
        if kill -0 "$pid" 2>/dev/null; then
            echo "[slurm-down] ERROR: $d (pid $pid) still alive" >&2
            rc=1
            continue
        fi
    fi
    echo "[slurm-down] stopped $d (pid $pid)"
    rm -f "$f"
done
exit "$rc"
