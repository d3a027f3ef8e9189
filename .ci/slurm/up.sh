#!/usr/bin/env bash
# Bring up a real single-node SLURM cluster on this machine (Debian 12, root,
# no systemd) so that CI can run the workflow through Snakemake's SLURM
# executor plugin. Idempotent: when the daemons recorded in the state dir are
# alive and the node answers, it only re-checks and exits 0.
#
#   bash .ci/slurm/up.sh            # install, configure, start, wait for idle
#   bash .ci/slurm/down.sh          # stop the daemons by their recorded PIDs
#
# Environment (all optional):
#   GEOMARGIN_SLURM_STATE   state dir for PID files, logs, spool
#                           (default /tmp/geomargin-slurm)
#   GEOMARGIN_SLURM_PARTITION  partition name (default "ci")
#   GEOMARGIN_SLURM_WAIT    seconds to wait for the node to become idle (60)
#   GEOMARGIN_SLURM_NO_INSTALL=1  skip apt-get (packages already present)
set -euo pipefail

STATE="${GEOMARGIN_SLURM_STATE:-/tmp/geomargin-slurm}"
PARTITION="${GEOMARGIN_SLURM_PARTITION:-ci}"
WAIT_S="${GEOMARGIN_SLURM_WAIT:-60}"
CONF=/etc/slurm/slurm.conf
NODE="$(hostname -s)"
t0=$(date +%s)

log() { echo "[slurm-up $(($(date +%s) - t0))s] $*"; }
die() {
    echo "[slurm-up] ERROR: $*" >&2
    for f in "$STATE"/log/munged.log "$STATE"/log/slurmctld.log "$STATE"/log/slurmd.log \
             "$STATE"/log/slurmctld.out "$STATE"/log/slurmd.out "$STATE"/log/munged.out; do
        if [ -s "$f" ]; then
            echo "----- last lines of $f -----" >&2
            tail -n 40 "$f" >&2
        fi
    done
    command -v sinfo >/dev/null && { echo "----- sinfo -----" >&2; sinfo -N -l >&2 || true; }
    exit 1
}
alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
node_state() { sinfo -h -N -n "$NODE" -o '%t' 2>/dev/null | head -n 1; }

if [ "$(id -u)" != 0 ]; then
    die "must run as root (installs packages and starts daemons)"
fi

# --- packages ----------------------------------------------------------------
if [ "${GEOMARGIN_SLURM_NO_INSTALL:-0}" != 1 ]; then
    need=0
    for b in munged slurmctld slurmd sinfo sbatch squeue; do
        command -v "$b" >/dev/null || need=1
    done
    if [ "$need" = 1 ]; then
        log "installing munge slurmctld slurmd slurm-client"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            munge slurmctld slurmd slurm-client >/dev/null
    fi
fi
for b in munged slurmctld slurmd sinfo sbatch squeue scontrol; do
    command -v "$b" >/dev/null || die "'$b' not found after install"
done
log "packages present: $(slurmctld -V)"

# --- directories and configuration --------------------------------------------
mkdir -p "$STATE"/log "$STATE"/spool/slurmctld "$STATE"/spool/slurmd /etc/slurm
CPUS="$(nproc)"
MEM_MB=$(awk '/^MemTotal:/ {printf "%d", $2 / 1024 * 0.85}' /proc/meminfo)
# Write to a temp file first: unchanged config + running daemons = nothing to do.
tmp="$(mktemp /etc/slurm/.slurm.conf.XXXXXX)"
cat > "$tmp" <<EOF
# Written by geomargin .ci/slurm/up.sh -- single-node CI cluster. Do not edit:
# the script rewrites it on every run.
ClusterName=geomargin-ci
SlurmctldHost=${NODE}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MailProg=/bin/true
# Finished jobs stay visible to squeue this long; the Snakemake plugin's squeue
# status check needs this well above its status-check interval (which grows
# to at most 180 s); a job purged before its last check would be waited on forever.
MinJobAge=900
ReturnToService=2
SchedulerType=sched/backfill
StateSaveLocation=${STATE}/spool/slurmctld
SlurmdSpoolDir=${STATE}/spool/slurmd
SlurmctldPidFile=${STATE}/slurmctld.daemon.pid
SlurmdPidFile=${STATE}/slurmd.daemon.pid
SlurmctldLogFile=${STATE}/log/slurmctld.log
SlurmdLogFile=${STATE}/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
SlurmctldPort=6817
SlurmdPort=6818
NodeName=${NODE} NodeAddr=127.0.0.1 CPUs=${CPUS} RealMemory=${MEM_MB} State=UNKNOWN
PartitionName=${PARTITION} Nodes=${NODE} Default=YES MaxTime=INFINITE State=UP
EOF
# --- already up? -------------------------------------------------------------
if alive "$STATE/munged.pid" && alive "$STATE/slurmctld.pid" && alive "$STATE/slurmd.pid" \
   && cmp -s "$tmp" "$CONF"; then
    st="$(node_state || true)"
    case "$st" in
        idle|mix|alloc)
            rm -f "$tmp"
            log "already up with this configuration (node $NODE is $st); nothing to do"
            exit 0 ;;
    esac
    log "daemons alive but node state is '${st:-?}'; restarting"
fi
# Configuration changed or daemons not all running: (re)start from scratch.
bash "$(dirname "$0")/down.sh"

mv -f "$tmp" "$CONF"
chmod 644 "$CONF"
log "wrote $CONF (node $NODE, CPUs=$CPUS, RealMemory=${MEM_MB} MB, partition $PARTITION)"

# --- munge ---------------------------------------------------------------------
id munge >/dev/null 2>&1 || die "user 'munge' missing (munge package not installed?)"
mkdir -p /etc/munge /var/lib/munge /var/log/munge /run/munge
if [ ! -s /etc/munge/munge.key ]; then
    log "creating munge key"
    if command -v mungekey >/dev/null; then
        mungekey --create --keyfile=/etc/munge/munge.key --force
    else
        dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
    fi
fi
chown -R munge:munge /etc/munge /var/lib/munge /var/log/munge /run/munge
chmod 700 /etc/munge /var/lib/munge /var/log/munge
chmod 755 /run/munge
chmod 400 /etc/munge/munge.key
chown munge:munge "$STATE"/log
touch "$STATE"/log/munged.log && chown munge:munge "$STATE"/log/munged.log

rm -f /run/munge/munged.pid /run/munge/munge.socket.2 /run/munge/munge.socket.2.lock

log "starting munged"
# --foreground, setpriv and setsid all exec (no fork), so $! is munged's own PID.
setsid setpriv --reuid=munge --regid=munge --init-groups -- /usr/sbin/munged --foreground \
    --log-file="$STATE/log/munged.log" \
    </dev/null >"$STATE/log/munged.out" 2>&1 &
echo $! >"$STATE/munged.pid"
for _ in $(seq 1 50); do
    munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
    sleep 0.2
done
munge -n | unmunge >/dev/null 2>&1 || die "munged does not answer (munge -n | unmunge failed)"

log "starting slurmctld"
setsid slurmctld -D -f "$CONF" </dev/null >"$STATE/log/slurmctld.out" 2>&1 &
echo $! >"$STATE/slurmctld.pid"
for _ in $(seq 1 50); do
    scontrol ping 2>/dev/null | grep -q 'is UP' && break
    alive "$STATE/slurmctld.pid" || die "slurmctld exited during start-up"
    sleep 0.2
done
scontrol ping 2>/dev/null | grep -q 'is UP' || die "slurmctld does not answer 'scontrol ping'"

log "starting slurmd"
setsid slurmd -D -f "$CONF" </dev/null >"$STATE/log/slurmd.out" 2>&1 &
echo $! >"$STATE/slurmd.pid"

# --- wait for the node --------------------------------------------------------
deadline=$(( $(date +%s) + WAIT_S ))
st=""
while [ "$(date +%s)" -lt "$deadline" ]; do
    alive "$STATE/slurmd.pid" || die "slurmd exited during start-up"
    alive "$STATE/slurmctld.pid" || die "slurmctld exited during start-up"
    st="$(node_state || true)"
    case "$st" in
        idle) break ;;
        down*|drain*|inval*)
            # A node left DOWN by an earlier run: bring it back once.
            scontrol update nodename="$NODE" state=resume 2>/dev/null || true ;;
    esac
    sleep 0.5
done
[ "$st" = idle ] || die "node $NODE not idle after ${WAIT_S}s (state '${st:-none}')"

log "SLURM is up: node $NODE idle in partition $PARTITION; PIDs in $STATE"
sinfo
