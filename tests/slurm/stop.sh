#!/usr/bin/env bash
# Stop the single-node SLURM started by tests/slurm/start.sh: only the processes named in its
# pid files (never by process name), newest first.  The state directory is kept (the database,
# munge key and configs are reused by the next start); remove it by hand for a clean slate.
#
#   bash tests/slurm/stop.sh        # SLURM_STATE_DIR as for start.sh [/tmp/copyscope-slurm]
set -uo pipefail

STATE=${SLURM_STATE_DIR:-/tmp/copyscope-slurm}
RUN=$STATE/run
export SLURM_CONF=$STATE/etc/slurm.conf

# pid_of NAME: the pid in run/NAME.pid if it is a live process called NAME (not a reused pid)
pid_of() {
  local pf=$RUN/$1.pid pid
  [[ -s $pf ]] || return 1
  pid=$(cat "$pf")
  [[ $pid =~ ^[0-9]+$ && "$(cat "/proc/$pid/comm" 2>/dev/null)" == "$1" ]] && echo "$pid"
}

stop() {
  local name=$1 pid
  if pid=$(pid_of "$name"); then
    kill "$pid"
    for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then
      kill -9 "$pid"
      echo "[slurm/stop.sh] killed $name (pid $pid, did not stop within 30 s)"
    else
      echo "[slurm/stop.sh] stopped $name (pid $pid)"
    fi
  fi
  rm -f "$RUN/$name.pid"
}

if [[ ! -d $RUN ]]; then
  echo "[slurm/stop.sh] nothing to stop ($RUN does not exist)"
  exit 0
fi
# jobs still running on our cluster (e.g. left by an interrupted test): cancel them first, so
# that no slurmstepd outlives its slurmd
if pid_of slurmctld >/dev/null && [[ -n $(squeue -h -o %i 2>/dev/null) ]]; then
  scancel --full $(squeue -h -o %i) 2>/dev/null
  for _ in $(seq 20); do [[ -z $(squeue -h -t R,CG -o %i 2>/dev/null) ]] && break; sleep 0.5; done
  echo "[slurm/stop.sh] cancelled remaining jobs"
fi
stop slurmd
stop slurmctld
stop slurmdbd
stop mariadbd
stop munged
rm -f "$STATE/munge/munged.pid"
exit 0
