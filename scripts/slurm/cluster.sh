#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for trying the tournament job array
# (scripts/slurm/tournament.sbatch) and for the test that runs it (tests/slurm.rs).
#
#   scripts/slurm/cluster.sh start [DIR]    write a configuration for this machine into DIR,
#                                           start munged, slurmctld and slurmd, wait until the
#                                           node is idle, and print the line to export SLURM_CONF
#   scripts/slurm/cluster.sh stop [DIR]     stop the three daemons started from DIR
#   scripts/slurm/cluster.sh status [DIR]   sinfo and squeue of that cluster
#
# DIR (default /tmp/arena-slurm) holds everything: slurm.conf, the munge key and socket,
# state, spool, logs and pid files; nothing under /etc is changed and no systemd is needed.
# Run as root, with Slurm's and munge's programs installed (Debian: apt-get install
# slurm-wlm munge; `.ci/run` installs them): the script installs nothing, and names what is
# missing in one line. The node has this machine's cores as its CPUs. The ports are
# SLURMCTLD_PORT (6817) and SLURMD_PORT (6818); pick others when a Slurm already runs here.
# Slurm's own commands find this cluster through SLURM_CONF=DIR/slurm.conf.
#
# This is not a production set-up: one node, jobs run as root, no accounting, no cgroups.
set -euo pipefail

die() { echo "cluster.sh: $*" >&2; exit 1; }

cmd=${1:-}
dir=${2:-/tmp/arena-slurm}
case "$cmd" in start|stop|status) ;; *) die "usage: cluster.sh start|stop|status [DIR]" ;; esac
case "$dir" in /*) ;; *) dir="$PWD/$dir" ;; esac
conf="$dir/slurm.conf"
export SLURM_CONF="$conf"

# Stops the daemon whose pid file is $1 (if it runs) and waits for it to exit.
stop_one() {
    local pidfile=$1 name=$2 pid
    [ -s "$pidfile" ] || return 0
    pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null && grep -q "$name" "/proc/$pid/comm" 2>/dev/null; then
        kill "$pid"
        for _ in $(seq 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then
            kill -9 "$pid" 2>/dev/null || true
        fi
    fi
    rm -f "$pidfile"
}

stop() {
    # Jobs first (their job steps would outlive slurmd), then slurmd, the controller, munge.
    if [ -s "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null; then
        local jobs
        jobs=$(squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ')
        if [ -n "${jobs// /}" ]; then
            # shellcheck disable=SC2086 # one word per job id
            scancel $jobs 2>/dev/null || true
            for _ in $(seq 300); do
                [ -z "$(squeue -h -o %A 2>/dev/null)" ] && break
                sleep 0.1
            done
        fi
    fi
    stop_one "$dir/slurmd.pid" slurmd
    stop_one "$dir/slurmctld.pid" slurmctld
    stop_one "$dir/munged.pid" munged
}

if [ "$cmd" = stop ]; then
    [ -d "$dir" ] || die "$dir: no cluster was started there"
    stop
    echo "stopped the Slurm cluster of $dir"
    exit 0
fi
if [ "$cmd" = status ]; then
    [ -f "$conf" ] || die "$conf: no cluster was started there"
    sinfo
    squeue
    exit 0
fi

[ "$(id -u)" = 0 ] || die "must run as root (it starts Slurm's daemons as root)"
PATH="$PATH:/usr/sbin:/sbin"
missing=()
for tool in munged:munge mungekey:munge slurmctld:slurm-wlm slurmd:slurm-wlm sbatch:slurm-wlm sinfo:slurm-wlm; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool%%:*} (${tool#*:})")
done
[ ${#missing[@]} -eq 0 ] ||
    die "not installed: ${missing[*]}; install them first (Debian: apt-get install slurm-wlm munge)"

if [ -s "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null; then
    die "$dir: a cluster is already running there (cluster.sh stop $dir first)"
fi
ctld_port=${SLURMCTLD_PORT:-6817}
slurmd_port=${SLURMD_PORT:-6818}
for port in "$ctld_port" "$slurmd_port"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        die "port $port is in use (a Slurm already running?); set SLURMCTLD_PORT and SLURMD_PORT"
    fi
done

node=$(hostname -s)
cpus=$(nproc --all)
mkdir -p "$dir"/{munge,state,spool,log}
chmod 700 "$dir/munge"

# Munge: its own key, socket, pid and log in DIR (munged insists on private directories).
[ -s "$dir/munge/munge.key" ] || mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null 2>&1 ||
    die "mungekey could not create $dir/munge/munge.key"
chmod 600 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket.2" \
    --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" ||
    die "munged did not start (see $dir/log/munged.log)"

cat >"$conf" <<CONF
# A single-node cluster written by scripts/slurm/cluster.sh for $node ($cpus CPUs).
ClusterName=arena
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket.2
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
MpiDefault=none
SwitchType=switch/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
JobRequeue=1
KillWait=10
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=arena Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF

# Anything that fails from here on stops what was started.
trap 'stop' ERR
slurmctld -i || die "slurmctld did not start (see $dir/log/slurmctld.log)"
slurmd || die "slurmd did not start (see $dir/log/slurmd.log)"

state=""
for _ in $(seq 120); do
    state=$(sinfo -h -n "$node" -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.5
done
if [ "$state" != idle ]; then
    stop
    die "the node $node is ${state:-not known to slurmctld} after 60 s, not idle (see $dir/log/)"
fi
trap - ERR
echo "Slurm is up: node $node idle with $cpus CPUs; daemons of $dir (stop: cluster.sh stop $dir)"
echo "export SLURM_CONF=$conf"
