#!/usr/bin/env bash
# Starts a throw-away single-node Slurm cluster (munged + slurmctld + slurmd from Debian's
# munge / slurm-wlm) in folder $1, as this shell's own background processes, on ports
# from $2 (two ports). Sourced by slurm_e2e.sh: defines start_slurm_cluster and
# stop_slurm_cluster, and exports SLURM_CONF so that sbatch/squeue talk to this cluster.
# Needs root (slurmd runs jobs as their owner; munged refuses group-writable dirs). Works
# without systemd and without a cgroup file system (a bare Debian chroot): processes are
# tracked through /proc (proctrack/linuxproc), tasks are not bound (task/none), and the
# cgroup plugin slurmd always loads is pointed at an empty folder of its own.

# Prints which Slurm / MUNGE programs are missing ("" when all are there).
slurm_missing_tools() {
  local missing=()
  for tool in munged mungekey slurmctld slurmd sbatch squeue; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  if ((${#missing[@]})); then
    echo "not installed: ${missing[*]} (apt-get install slurm-wlm munge)"
  fi
}

# start_slurm_cluster DIR PORT: returns 0 once the node is idle, 1 (with a message) if not.
start_slurm_cluster() {
  local dir="$1" port="$2" host
  host="$(hostname -s)"
  mkdir -p "$dir"/{munge,state,spool,log}
  chmod 700 "$dir/munge"
  mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null 2>&1 || { echo "mungekey failed"; return 1; }
  munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
         --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
         --seed-file="$dir/munge/munged.seed" || { echo "munged failed: $(tail -1 "$dir/log/munged.log")"; return 1; }
  local cpus
  cpus="$(nproc)"
  cat > "$dir/slurm.conf" <<CONF
ClusterName=ipusimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  # slurmd initialises a cgroup plugin even with proctrack/linuxproc and task/none; the
  # default (autodetect) fails where /sys/fs/cgroup is absent (a chroot), cgroup/v1 on an
  # empty mount point of our own only loads, and touches no real cgroup.
  mkdir -p "$dir/cgroupfs"
  cat > "$dir/cgroup.conf" <<CONF
CgroupPlugin=cgroup/v1
CgroupMountpoint=$dir/cgroupfs
IgnoreSystemd=yes
CONF
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -f "$SLURM_CONF" >>"$dir/log/slurmctld.stdout" 2>&1 || { echo "slurmctld failed: $(tail -2 "$dir/log/slurmctld.log")"; return 1; }
  slurmd -f "$SLURM_CONF" >>"$dir/log/slurmd.stdout" 2>&1 || { echo "slurmd failed: $(tail -2 "$dir/log/slurmd.log")"; return 1; }
  local state=""
  for _ in $(seq 1 60); do
    state="$(sinfo -h -N -o '%T' 2>/dev/null | head -1)"
    case "$state" in idle*) return 0 ;; esac
    sleep 0.5
  done
  echo "the node never became idle (state '$state'): $(tail -2 "$dir/log/slurmd.log")"
  return 1
}

# stop_slurm_cluster DIR: stops the daemons started from DIR (by their pid files).
stop_slurm_cluster() {
  local dir="$1"
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
  done
  sleep 0.5
  return 0
}
