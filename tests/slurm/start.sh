#!/usr/bin/env bash
# Start a real single-node SLURM for the slurm-marked tests and CI (run as root).
#
#   bash tests/slurm/start.sh       # idempotent: a second run only checks that all is up
#   bash tests/slurm/stop.sh        # stops what this script started (by pid file)
#
# Debian 12 (slurm 22.05), no systemd needed: munged, MariaDB, slurmdbd (accounting, so that
# `sacct` works: the Snakemake executor plugin checks job status with it), slurmctld and slurmd,
# all on 127.0.0.1.  Packages are installed only if missing.  Everything else lives under the
# state directory: generated configs, munge key and socket, database, spool, logs, pid files.
# The only file written outside it is the symlink /etc/slurm/slurm.conf -> <state>/etc/slurm.conf
# (the default place SLURM's commands look), made only if no other slurm.conf is there.
#
# Environment (all optional):
#   SLURM_STATE_DIR  state directory                          [/tmp/copyscope-slurm]
#   SLURM_ACCOUNT    account created for root (and $SUDO_USER) [copyscope]
#   SLURM_PARTITION  the default partition                     [debug]
#   SLURM_DB_PORT    MariaDB port on 127.0.0.1                 [16820]
#   SLURM_START_TIMEOUT  seconds allowed for each wait          [60]
set -euo pipefail

STATE=${SLURM_STATE_DIR:-/tmp/copyscope-slurm}
ACCOUNT=${SLURM_ACCOUNT:-copyscope}
PARTITION=${SLURM_PARTITION:-debug}
DB_PORT=${SLURM_DB_PORT:-16820}
TIMEOUT=${SLURM_START_TIMEOUT:-60}
CLUSTER=copyscope

ETC=$STATE/etc RUN=$STATE/run LOG=$STATE/log SPOOL=$STATE/spool
MUNGE_DIR=$STATE/munge DB_DIR=$STATE/mysql
MUNGE_SOCKET=$MUNGE_DIR/munge.socket
DB_SOCKET=$DB_DIR/mysqld.sock # (in the datadir: the mysql user must own the directory)
export SLURM_CONF=$ETC/slurm.conf # for the daemons and the commands below (slurmdbd.conf is
#                                   read from the same directory)
t0=$(date +%s)
log() { echo "[slurm/start.sh $(($(date +%s) - t0))s] $*"; }
die() {
  echo "[slurm/start.sh] ERROR: $*" >&2
  for f in "$LOG"/*.log; do [[ -s $f ]] && { echo "--- tail $f" >&2; tail -n 15 "$f" >&2; }; done
  exit 1
}
# wait_for SECONDS DESCRIPTION COMMAND...: poll COMMAND every 0.5 s until it succeeds
# (if $WATCH is a pid, give up as soon as that process is gone)
wait_for() {
  local secs=$1 what=$2
  shift 2
  local end=$(($(date +%s) + secs))
  until "$@" >/dev/null 2>&1; do
    (($(date +%s) < end)) || die "timed out after ${secs}s waiting for $what"
    [[ -z ${WATCH:-} ]] || kill -0 "$WATCH" 2>/dev/null || die "$what: the process exited"
    sleep 0.5
  done
}
# running NAME PIDFILE: the pid file names a live process called NAME (guards against pid reuse)
running() {
  local pid
  [[ -s $2 ]] || return 1
  pid=$(cat "$2")
  [[ $pid =~ ^[0-9]+$ ]] && [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == "$1" ]]
}

[[ $(id -u) == 0 ]] || die "run as root (SLURM daemons, munge and MariaDB are started here)"
mkdir -p "$STATE"

# ---------------------------------------------------------------- packages (only if missing)
pkgs=(slurmctld slurmd slurm-client munge slurmdbd mariadb-server)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # policy-rc.d: keep the packages' init scripts from starting daemons of their own
  had_policy=0
  [[ -e /usr/sbin/policy-rc.d ]] && had_policy=1
  ((had_policy)) || printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
  chmod +x /usr/sbin/policy-rc.d
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$STATE/apt-get.log" 2>&1 ||
    { tail -n 20 "$STATE/apt-get.log"; ((had_policy)) || rm -f /usr/sbin/policy-rc.d; die "apt-get install failed"; }
  ((had_policy)) || rm -f /usr/sbin/policy-rc.d
  log "installed"
else
  log "packages present: ${pkgs[*]}"
fi

# ---------------------------------------------------------------- state directory
mkdir -p "$STATE" "$ETC" "$RUN" "$LOG" "$SPOOL/slurmctld" "$SPOOL/slurmd" "$MUNGE_DIR"
chmod 0755 "$STATE" "$ETC" "$RUN" "$LOG"
chown slurm:slurm "$RUN" "$LOG" "$SPOOL/slurmctld" # written by slurmctld/slurmdbd (SlurmUser)
chown munge:munge "$MUNGE_DIR"
chmod 0755 "$MUNGE_DIR" # clients need to reach the socket; the key itself is 0400

NODE=$(hostname -s)
CPUS=$(nproc)
MEM=$(slurmd -C | tr ' ' '\n' | sed -n 's/^RealMemory=//p')
[[ $MEM =~ ^[0-9]+$ ]] || die "could not read RealMemory from 'slurmd -C'"

# ---------------------------------------------------------------- munge (own key and socket)
if [[ ! -s $MUNGE_DIR/munge.key ]]; then
  dd if=/dev/urandom of="$MUNGE_DIR/munge.key" bs=1 count=1024 status=none
  log "generated munge key"
fi
chown munge:munge "$MUNGE_DIR/munge.key"
chmod 0400 "$MUNGE_DIR/munge.key"
munge_ok() { munge -n --socket="$MUNGE_SOCKET" | unmunge --socket="$MUNGE_SOCKET"; }
if running munged "$RUN/munged.pid"; then
  log "munged already running (pid $(cat "$RUN/munged.pid"))"
else
  runuser -u munge -- munged --force --socket="$MUNGE_SOCKET" --key-file="$MUNGE_DIR/munge.key" \
    --pid-file="$MUNGE_DIR/munged.pid" --log-file="$MUNGE_DIR/munged.log" \
    --seed-file="$MUNGE_DIR/munged.seed"
  wait_for "$TIMEOUT" munged munge_ok
  cp "$MUNGE_DIR/munged.pid" "$RUN/munged.pid" # the munge user owns its dir; stop.sh reads run/
  log "started munged (pid $(cat "$RUN/munged.pid"))"
fi

# ---------------------------------------------------------------- MariaDB (own datadir, 127.0.0.1)
SQL=(mariadb --no-defaults --socket="$DB_SOCKET" -uroot)
if running mariadbd "$RUN/mariadbd.pid"; then
  log "mariadb already running (pid $(cat "$RUN/mariadbd.pid"))"
else
  if [[ ! -d $DB_DIR/mysql ]]; then
    mkdir -p "$DB_DIR"
    chown mysql:mysql "$DB_DIR"
    mariadb-install-db --no-defaults --user=mysql --datadir="$DB_DIR" \
      --auth-root-authentication-method=socket >"$LOG/mariadb-install.log" 2>&1 ||
      die "mariadb-install-db failed (see $LOG/mariadb-install.log)"
    log "initialised database in $DB_DIR"
  fi
  if (echo >"/dev/tcp/127.0.0.1/$DB_PORT") 2>/dev/null; then
    die "port $DB_PORT is taken by another program; set SLURM_DB_PORT"
  fi
  # small footprint: no binlog, no performance schema, a small buffer pool
  setsid mariadbd --no-defaults --user=mysql --datadir="$DB_DIR" --socket="$DB_SOCKET" \
    --pid-file="$DB_DIR/mariadbd.pid" --port="$DB_PORT" --bind-address=127.0.0.1 \
    --skip-name-resolve --log-error="$LOG/mariadb.log" --innodb-buffer-pool-size=64M \
    --performance-schema=OFF --skip-log-bin </dev/null >>"$LOG/mariadb.log" 2>&1 &
  WATCH=$! wait_for "$TIMEOUT" mariadb mariadb-admin --no-defaults --socket="$DB_SOCKET" -uroot ping
  cp "$DB_DIR/mariadbd.pid" "$RUN/mariadbd.pid"
  log "started mariadb (pid $(cat "$RUN/mariadbd.pid"), port $DB_PORT)"
fi

# ---------------------------------------------------------------- configs (under $ETC)
# the database password: generated once, kept in slurmdbd.conf (mode 600, owned by SlurmUser)
DB_PASS=$(sed -n 's/^StoragePass=//p' "$ETC/slurmdbd.conf" 2>/dev/null || true)
[[ -n $DB_PASS ]] || DB_PASS=$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')
"${SQL[@]}" <<SQL || die "could not set up the accounting database"
CREATE DATABASE IF NOT EXISTS slurm_acct_db;
CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$DB_PASS';
ALTER USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$DB_PASS';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
FLUSH PRIVILEGES;
SQL

changed=()
# install_conf FILE: move FILE.new into place if its content differs; remember which changed
install_conf() {
  if cmp -s "$1.new" "$1"; then rm -f "$1.new"; else
    mv "$1.new" "$1"
    changed+=("$(basename "$1")")
  fi
}
umask 077
cat >"$ETC/slurmdbd.conf.new" <<EOF
# generated by tests/slurm/start.sh
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=6819
SlurmUser=slurm
LogFile=$LOG/slurmdbd.log
PidFile=$RUN/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=$DB_PASS
StorageLoc=slurm_acct_db
EOF
install_conf "$ETC/slurmdbd.conf"
chown slurm:slurm "$ETC/slurmdbd.conf"
chmod 600 "$ETC/slurmdbd.conf"
umask 022

cat >"$ETC/slurm.conf.new" <<EOF
# generated by tests/slurm/start.sh: a single node on 127.0.0.1
ClusterName=$CLUSTER
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=slurm
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET
CredType=cred/munge
MpiDefault=none
MailProg=/bin/true
# no cgroups (containers, no systemd): track processes via /proc, no task binding
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobContainerType=job_container/none
SwitchType=switch/none
ReturnToService=2
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd.pid
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=$SPOOL/slurmctld
SlurmdSpoolDir=$SPOOL/slurmd
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
DefMemPerCPU=1000
# finished jobs stay visible to squeue/scontrol for 5 min
MinJobAge=300
InactiveLimit=0
KillWait=10
Waittime=0
# accounting through slurmdbd: sacct works, and jobs need a valid account (as on real clusters)
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=6819
# (for slurmdbd connections the munge socket is given here, not by AuthInfo)
AccountingStoragePass=$MUNGE_SOCKET
AccountingStorageEnforce=associations
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=30
JobCompType=jobcomp/none
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
PartitionName=$PARTITION Nodes=$NODE Default=YES MaxTime=1-00:00:00 State=UP
EOF
install_conf "$ETC/slurm.conf"
# slurmd of 22.05 reads cgroup.conf even without cgroup plugins
echo "CgroupAutomount=no" >"$ETC/cgroup.conf.new"
install_conf "$ETC/cgroup.conf"
if ((${#changed[@]})); then log "wrote ${changed[*]} in $ETC"; fi

# the commands' default config path (so that sinfo/sbatch/sacct work without SLURM_CONF)
mkdir -p /etc/slurm
if [[ -L /etc/slurm/slurm.conf && "$(readlink /etc/slurm/slurm.conf)" == "$ETC/slurm.conf" ]]; then
  :
elif [[ -L /etc/slurm/slurm.conf || ! -e /etc/slurm/slurm.conf ]]; then
  ln -sfn "$ETC/slurm.conf" /etc/slurm/slurm.conf
  log "linked /etc/slurm/slurm.conf -> $ETC/slurm.conf"
else
  log "WARNING: /etc/slurm/slurm.conf is someone else's: export SLURM_CONF=$ETC/slurm.conf"
fi
printf 'export SLURM_CONF=%s\n' "$ETC/slurm.conf" >"$STATE/env.sh"

# a changed configuration needs the daemons restarted (e.g. after a change of memory or CPUs)
if ((${#changed[@]})); then
  for d in slurmd slurmctld slurmdbd; do
    if running "$d" "$RUN/$d.pid"; then
      log "configuration changed: restarting $d"
      kill "$(cat "$RUN/$d.pid")"
      wait_for "$TIMEOUT" "$d to stop" bash -c "! kill -0 $(cat "$RUN/$d.pid")"
    fi
  done
fi

# ---------------------------------------------------------------- slurmdbd and associations
if running slurmdbd "$RUN/slurmdbd.pid"; then
  log "slurmdbd already running (pid $(cat "$RUN/slurmdbd.pid"))"
else
  slurmdbd || die "slurmdbd failed to start"
  wait_for "$TIMEOUT" "slurmdbd's pid file" test -s "$RUN/slurmdbd.pid"
  log "started slurmdbd (pid $(cat "$RUN/slurmdbd.pid"))"
fi
wait_for "$TIMEOUT" "slurmdbd to answer" sacctmgr -n list cluster
has() { sacctmgr -n -P "$@" | grep -q .; }
if ! has list cluster "$CLUSTER" format=Cluster; then
  sacctmgr -i add cluster "$CLUSTER" >/dev/null
  log "added cluster $CLUSTER"
fi
if ! has list account "$ACCOUNT" format=Account; then
  sacctmgr -i add account "$ACCOUNT" Cluster="$CLUSTER" Description="copyscope tests" \
    Organization=copyscope >/dev/null
  log "added account $ACCOUNT"
fi
users=(root)
[[ -n ${SUDO_USER:-} && ${SUDO_USER} != root ]] && users+=("$SUDO_USER")
for u in "${users[@]}"; do
  if ! has list association cluster="$CLUSTER" account="$ACCOUNT" user="$u" format=User; then
    sacctmgr -i add user "$u" Account="$ACCOUNT" DefaultAccount="$ACCOUNT" \
      Cluster="$CLUSTER" >/dev/null
    log "added user $u to account $ACCOUNT"
  fi
done

# ---------------------------------------------------------------- slurmctld and slurmd
if running slurmctld "$RUN/slurmctld.pid"; then
  log "slurmctld already running (pid $(cat "$RUN/slurmctld.pid"))"
else
  slurmctld -i || die "slurmctld failed to start" # -i: start even with unreadable state files
  wait_for "$TIMEOUT" "slurmctld to answer" scontrol ping
  log "started slurmctld (pid $(cat "$RUN/slurmctld.pid"))"
fi
if running slurmd "$RUN/slurmd.pid"; then
  log "slurmd already running (pid $(cat "$RUN/slurmd.pid"))"
else
  slurmd || die "slurmd failed to start"
  wait_for "$TIMEOUT" "slurmd's pid file" test -s "$RUN/slurmd.pid"
  log "started slurmd (pid $(cat "$RUN/slurmd.pid"))"
fi

# ---------------------------------------------------------------- wait for the node, run a job
node_idle() {
  local st
  st=$(sinfo -h -N -n "$NODE" -o %T 2>/dev/null | head -n1)
  case $st in
  idle* | mixed* | allocated*) return 0 ;;
  drain* | down*) scontrol update NodeName="$NODE" State=RESUME >/dev/null 2>&1 || true ;;
  esac
  return 1
}
wait_for "$TIMEOUT" "node $NODE to become idle" node_idle
log "node $NODE up: $CPUS CPUs, ${MEM} MB, partition $PARTITION, account $ACCOUNT"

name=copyscope-smoke-$$
out=$(timeout "$TIMEOUT" srun -J "$name" -A "$ACCOUNT" -p "$PARTITION" -N1 -n1 -t 1 --mem=100 \
  hostname 2>&1) || die "test job 'srun hostname' failed: $out"
# the plugin polls `sacct`: the finished job must be in the accounting database
sacct_done() { sacct -n -X -P --name "$name" -o State | grep -q COMPLETED; }
wait_for "$TIMEOUT" "sacct to list the test job" sacct_done
log "test job ran on '$out' and sacct lists it COMPLETED"
sinfo
log "SLURM is up (state in $STATE; stop with: bash tests/slurm/stop.sh)"
