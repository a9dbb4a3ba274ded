#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# dlcheck against the real fleet engines, on this one host: a 3-node Slurm cluster of Debian's
# slurm-wlm and munge (one munged, one slurmctld, three slurmd on their own ports, everything
# in a temp dir), pdsh's exec module and dshbak. Needs root (the daemons run as root and munged
# as user munge): exits 77 (ctest: skipped) with a message otherwise.
#
#   slurm_fleet_test.sh DLCHECK_BINARY
#
# What it checks: `srun -N3 dlcheck check --stable` and `pdsh -R exec ... check --stable`
# collapse into one block in `dshbak -c`; `srun -N3 dlcheck platform --format json` gathered
# into `dlcheck fleet` is one group node[1-3]; the generated node lines (check --emit slurm-conf:
# slurmd -C's hardware fields and Features) are accepted by slurmctld and slurmd (in slurm.conf and by a dynamic `slurmd -Z --conf Feature=...`) and
# `srun -C` lands only on nodes that have them; the HealthCheckProgram
# drains a node for an unmet requirement, resumes it when the requirement is met again, and
# leaves an administrator's drain alone; teardown leaves no daemon (checked with ps).
set -uo pipefail

DL=$(realpath "${1:?usage: slurm_fleet_test.sh DLCHECK_BINARY}")
if [[ $EUID -ne 0 ]]; then
  echo "SKIPPED: the Slurm/pdsh integration test needs root (it starts munged, slurmctld and" \
       "three slurmd); CI runs it as root"
  exit 77
fi
for tool in slurmctld slurmd srun scontrol sinfo munged pdsh dshbak runuser; do
  command -v "$tool" > /dev/null || {
    echo "FAIL: $tool is missing: install slurm-wlm, munge and pdsh (bash scripts/setup.sh)"
    exit 1
  }
done

T=$(mktemp -d /tmp/dlcheck-slurm.XXXXXX)
chmod 755 "$T"
export SLURM_CONF=$T/etc/slurm.conf
NODES=(node1 node2 node3)
failures=0
start=$SECONDS

say() { echo "[$((SECONDS - start))s] $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect_eq() { if [[ $1 == "$2" ]]; then say "ok: $3"; else fail "$3: got '$1', want '$2'"; fi; }

# Six free ports in a row (slurmctld, the dynamic node's slurmd port, node1..node3, a second
# slurmctld on the config `dlcheck fleet --emit slurm-conf` writes).
pick_ports() {
  local base
  for base in $(seq $((20000 + $$ % 20000)) 50 60000); do
    if ! command -v ss > /dev/null || ! ss -Hltn | awk '{print $4}' | grep -qE ":($base|$((base + 1))|$((base + 2))|$((base + 3))|$((base + 4))|$((base + 5)))\$"; then
      echo "$base"; return
    fi
  done
}
PORT=$(pick_ports)

# The daemons we started, by pid file; teardown stops exactly these, then checks with ps that
# neither they nor any of their descendants (slurmscriptd, slurmstepd) are left.
pidfiles() { ls "$T"/run/*.pid 2> /dev/null; }
descendants() {
  ps -eo pid=,ppid= | awk -v roots=" $* " '
    { parent[$1] = $2 }
    END { for (p in parent) { q = p; while (q in parent && q != 1) { if (index(roots, " " q " ")) { print p; break } q = parent[q] } } }'
}
# A process that still runs: it exists and is not a zombie waiting for its parent to reap it.
alive() { [[ -r /proc/$1/stat ]] && [[ $(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -d' ' -f1) != Z ]]; }
teardown() {
  scancel --quiet --partition=debug 2> /dev/null
  local f pid pids=() family
  for f in $(pidfiles | sort -r); do   # slurmd-*, slurmctld, munged
    pid=$(tr -dc 0-9 < "$f"); [[ -n $pid ]] && kill -TERM "$pid" 2> /dev/null && pids+=("$pid")
  done
  family=$(descendants "${pids[@]}")
  local i; for i in $(seq 100); do
    local waiting=0; for pid in "${pids[@]}"; do kill -0 "$pid" 2> /dev/null && waiting=1; done
    ((waiting)) || break; sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2> /dev/null; done
  # Their children (slurmd's forks for an RPC, slurmstepd) end with them; on a loaded machine
  # (the sanitizer build beside other tests) that takes a while: up to 5 s, then they are killed.
  for i in $(seq 50); do
    local running=0; for pid in $family; do alive "$pid" && running=1; done
    ((running)) || break; sleep 0.1
  done
  for pid in $family; do kill -KILL "$pid" 2> /dev/null; done
  sleep 0.2
  local left
  left=$(pgrep -a -f "$T" | grep -v slurm_fleet_test)
  if [[ -n $left ]]; then echo "FAIL: processes left behind:"; echo "$left"; failures=$((failures + 1)); fi
  for pid in $family; do
    alive "$pid" && { echo "FAIL: $pid ($(cat "/proc/$pid/comm" 2> /dev/null)) still runs"; failures=$((failures + 1)); }
  done
  rm -rf "$T"
}
trap 'teardown; say "teardown done"; [[ $failures -eq 0 ]] && echo PASSED || echo "FAILED ($failures)"; exit $((failures > 0))' EXIT

write_conf() {
  local host=$1 i line
  mkdir -p "$T"/{etc,state,log,run,munge,reports} "${NODES[@]/#/$T/spool/}"
  {
    echo "ClusterName=dlcheck"
    echo "SlurmctldHost=$host(127.0.0.1)"
    echo "SlurmctldPort=$PORT"
    echo "SlurmdPort=$((PORT + 1))"
    echo "AuthType=auth/munge"
    echo "CredType=cred/munge"
    echo "AuthInfo=socket=$T/munge/munge.socket.2"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "StateSaveLocation=$T/state"
    echo "SlurmdSpoolDir=$T/spool/%n"
    echo "SlurmctldPidFile=$T/run/slurmctld.pid"
    echo "SlurmdPidFile=$T/run/slurmd-%n.pid"
    echo "SlurmctldLogFile=$T/log/slurmctld.log"
    echo "SlurmdLogFile=$T/log/slurmd-%n.log"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "MpiDefault=none"
    echo "SchedulerType=sched/builtin"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_CPU"
    echo "ReturnToService=2"
    echo "SlurmdTimeout=60"
    echo "HealthCheckProgram=$T/etc/health.sh"
    echo "MaxNodeCount=4"      # room for one dynamic node (slurmd -Z)
    echo "TreeWidth=65533"     # needed by dynamic nodes
    echo "HealthCheckInterval=5"
    for i in 0 1 2; do
      # node1 and node2 are the whole lines dlcheck generates (hardware and Features); node3 has
      # no features, so -C must avoid it.
      line="NodeName=${NODES[$i]} CPUs=$(nproc)"; ((i < 2)) && line=${FEATURES[$i]}
      echo "$line NodeHostname=$host NodeAddr=127.0.0.1 Port=$((PORT + 2 + i)) State=UNKNOWN"
    done
    echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
  } > "$SLURM_CONF"
  # The HealthCheckProgram runs with only SLURMD_NODENAME: everything else is in the config.
  cat > "$T/etc/health.sh" << SH
#!/bin/sh
exec "$DL" check --config "$T/etc/health-\$SLURMD_NODENAME.conf" > /dev/null
SH
  chmod 755 "$T/etc/health.sh"
  for n in "${NODES[@]}"; do health_conf "$n" ""; done
}

# The health check's config of node $1, with extra lines $2.
health_conf() {
  printf 'slurm-health-check = true\nstable = true\nscontrol = %s\nslurm-conf = %s\n%s\n' \
    "$(command -v scontrol)" "$SLURM_CONF" "$2" > "$T/etc/health-$1.conf.new"
  mv "$T/etc/health-$1.conf.new" "$T/etc/health-$1.conf"
}

start_daemons() {
  chown munge:munge "$T/munge"
  head -c 1024 /dev/urandom > "$T/munge/munge.key"
  chown munge:munge "$T/munge/munge.key"; chmod 0400 "$T/munge/munge.key"
  touch "$T/run/munged.pid"; chown munge:munge "$T/run/munged.pid"
  runuser -u munge -- "$(command -v munged)" --key-file="$T/munge/munge.key" \
    --socket="$T/munge/munge.socket.2" --pid-file="$T/run/munged.pid" \
    --log-file="$T/munge/munged.log" --seed-file="$T/munge/munged.seed" || return 1
  local i; for i in $(seq 50); do [[ -S $T/munge/munge.socket.2 ]] && break; sleep 0.1; done
  slurmctld -f "$SLURM_CONF" || return 1
  local n; for n in "${NODES[@]}"; do slurmd -f "$SLURM_CONF" -N "$n" || return 1; done
}

# Waits until sinfo shows node $1 in a state matching the regex $2; $3 seconds at most.
wait_state() {
  local t
  for ((t = 0; t < $3 * 2; t++)); do
    [[ $(sinfo -h -n "$1" -N -o '%t' 2> /dev/null) =~ $2 ]] && return 0
    sleep 0.5
  done
  return 1
}

# --- up ----------------------------------------------------------------------------------------
HOST=$(hostname -s)
mapfile -t FEATURES < <(for n in node1 node2; do "$DL" check --stable --emit slurm-conf --node-name "$n"; done)
[[ ${FEATURES[0]} == "NodeName=node1 CPUs="*" Features="*onednn_* ]] || { fail "generated line: ${FEATURES[0]}"; exit 1; }
# The hardware fields are slurmd -C's own.
hardware=${FEATURES[0]#NodeName=node1 }
expect_eq "${hardware% Features=*}" "$(slurmd -C | head -n1 | cut -d' ' -f2-)" "check --emit slurm-conf has slurmd -C's hardware"
write_conf "$HOST"
start_daemons || { fail "daemons did not start"; tail -n 20 "$T"/log/* "$T"/munge/*.log; exit 1; }
for n in "${NODES[@]}"; do wait_state "$n" '^idle$' 60 || { fail "$n not idle"; sinfo -N; tail -n 20 "$T/log/slurmd-$n.log"; exit 1; }; done
say "cluster up: $(sinfo -h -N -o '%N %t' | tr '\n' ' ')"

# --- generated features: slurmd took every token, srun -C lands only where they are --------------
want=${FEATURES[0]#*Features=}
expect_eq "$(sinfo -h -n node1 -N -o '%f')" "$want" "slurm took node1's generated features"
# The oneDNN tokens are cumulative: the node's top level and every level below it ("at least").
levels=$(tr ',' '\n' <<< "$want" | grep '^onednn_' | tr '\n' ' ')
[[ $levels == *onednn_sse41* ]] || fail "oneDNN levels are not cumulative: $levels"
isa="" unmet=""
for level in sse41 avx avx2 avx512_core avx512_core_vnni avx512_core_bf16 avx512_core_amx; do
  if [[ " $levels" == *" onednn_$level "* ]]; then isa=onednn_$level; else unmet=${unmet:-onednn_$level}; fi
done
got=$(srun -N2 -C "$isa" -l printenv SLURMD_NODENAME | sort | awk '{print $2}' | tr '\n' ' ')
expect_eq "$got" "node1 node2 " "srun -N2 -C $isa lands on node1 and node2"
if srun -N3 -C "$isa" true 2> /dev/null; then
  fail "srun -N3 -C $isa ran"
else
  say "ok: srun -N3 -C $isa is refused (node3 lacks it)"
fi
for level in onednn_avx2 onednn_avx512_core onednn_avx512_core_bf16; do
  [[ " $levels" == *" $level "* ]] || continue
  got=$(srun -N2 -C "$level" -l printenv SLURMD_NODENAME | sort | awk '{print $2}' | tr '\n' ' ')
  expect_eq "$got" "node1 node2 " "srun -N2 -C $level (at least) lands on node1 and node2"
done
if [[ -z $unmet ]]; then
  say "skip: this host meets every oneDNN level; no unmet token to refuse"
elif srun -C "$unmet" true 2> /dev/null; then
  fail "srun -C $unmet ran on a host below that level"
else
  say "ok: srun -C $unmet is refused (no node meets it)"
fi

# --- srun and pdsh: check --stable collapses in dshbak -c -----------------------------------------
out=$(srun -N3 -l "$DL" check --stable); rc=$?
collapsed=$(dshbak -c <<< "$out")
expect_eq "$(grep -c '^----------------$' <<< "$collapsed")" 2 "srun check --stable: one dshbak -c block"
expect_eq "$(sed -n 2p <<< "$collapsed")" "[0-2]" "srun check --stable: the block is tasks [0-2]"
state=$(sed -n 4p <<< "$collapsed" | awk '{print $2}')
expect_eq "$rc" "$(case $state in OK) echo 0 ;; WARNING) echo 1 ;; CRITICAL) echo 2 ;; *) echo 3 ;; esac)" \
  "srun's exit status is the check's ($state)"
collapsed=$(pdsh -S -R exec -w 'node[1-3]' "$DL" check --stable | dshbak -c)
expect_eq "$(sed -n 2p <<< "$collapsed")" "node[1-3]" "pdsh -R exec check --stable: one block node[1-3]"
pdsh -S -R exec -w 'node[1-3]' "$DL" check --stable --min-cores 1048576 > /dev/null 2>&1
expect_eq "$?" 2 "pdsh -S returns the CRITICAL exit status"

# --- platform JSON gathered into dlcheck fleet ----------------------------------------------------
srun -N3 sh -c "\"$DL\" platform --format json > \"$T/reports/\$SLURMD_NODENAME.json\""
echo '{"schema_version": 1, "command": "platf' > "$T/reports/broken.json"
fleet=$("$DL" fleet --format csv "$T/reports")
expect_eq "$(grep -c . <<< "$fleet")" 2 "fleet: one group (a header and one row)"
expect_eq "$(sed -n 2p <<< "$fleet" | cut -d, -f2,3)" "3,node[1-3]" "fleet: the group is node[1-3]"
skipped=$("$DL" fleet --format json "$T/reports" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["skipped"]), d["skipped"][0]["file"].rsplit("/",1)[-1])')
expect_eq "$skipped" "1 broken.json" "fleet: the broken report is named, not fatal"

# --- HealthCheckProgram: drain for an unmet requirement, resume when met, admin drains kept ------
scontrol update NodeName=node3 State=DRAIN Reason="admin: memory test"
health_conf node2 "min-cores = 1048576"
if wait_state node2 'drain' 30; then
  reason=$(sinfo -h -n node2 -N -o '%E')
  if [[ $reason == "dlcheck: CRITICAL - "*" cores, fewer than 1048576" ]]; then
    say "ok: node2 drained by its health check ($reason)"
  else
    fail "node2's reason: $reason"
  fi
else
  fail "node2 was not drained: $(sinfo -h -N -o '%N %t %E')"; tail -n 5 "$T/log/slurmd-node2.log"
fi
health_conf node2 ""
if wait_state node2 '^idle$' 30; then
  say "ok: node2 resumed once the requirement was met"
else
  fail "node2 not resumed: $(sinfo -h -N -o '%N %t %E')"
fi
sleep 6   # at least one more health check on node3
expect_eq "$(sinfo -h -n node3 -N -o '%t %E')" "drain admin: memory test" "node3's admin drain untouched"

# --- a dynamic node started with the features dlcheck prints (slurmd -Z --conf Feature=...) ------
dynamic=$("$DL" check --stable --emit slurm-features)
mkdir -p "$T/spool/node4"
if slurmd -f "$SLURM_CONF" -Z -N node4 --conf "Feature=$dynamic" && wait_state node4 '^idle$' 30; then
  expect_eq "$(sinfo -h -n node4 -N -o '%f')" "$dynamic" "slurmd -Z took every generated feature"
  expect_eq "$(srun -w node4 -C "$isa" printenv SLURMD_NODENAME)" node4 "srun -C $isa runs on the dynamic node"
else
  fail "dynamic node4 did not come up: $(sinfo -h -N -o '%N %t')"; tail -n 5 "$T/log/slurmd-node4.log"
fi
# --- dlcheck fleet --emit slurm-conf: one hostlist line per group, taken by a real slurmctld -------
conf_line=$("$DL" fleet --emit slurm-conf "$T/reports" 2> /dev/null)
expect_eq "$(grep -c . <<< "$conf_line")" 1 "fleet --emit slurm-conf: one line for one group"
[[ $conf_line == "NodeName=node[1-3] CPUs=$(nproc) Boards=1 "*" Features="*onednn_sse41* ]] ||
  fail "fleet --emit slurm-conf: $conf_line"
mkdir -p "$T/state-fleet"
sed -e "/^NodeName=/d" -e "/^HealthCheck/d" -e "/^MaxNodeCount/d" \
    -e "s|^SlurmctldPort=.*|SlurmctldPort=$((PORT + 5))|" \
    -e "s|^StateSaveLocation=.*|StateSaveLocation=$T/state-fleet|" \
    -e "s|^SlurmctldPidFile=.*|SlurmctldPidFile=$T/run/slurmctld-fleet.pid|" \
    -e "s|^SlurmctldLogFile=.*|SlurmctldLogFile=$T/log/slurmctld-fleet.log|" \
    -e "s|^PartitionName=.*|$conf_line NodeHostname=$HOST NodeAddr=127.0.0.1\n&|" \
    "$SLURM_CONF" > "$T/etc/fleet.conf"
if slurmctld -f "$T/etc/fleet.conf"; then
  shown=""
  for _ in $(seq 40); do
    shown=$(SLURM_CONF=$T/etc/fleet.conf sinfo -h -N -o '%N %c %f' 2> /dev/null | sort -u | tr '\n' ';')
    [[ -n $shown ]] && break; sleep 0.25
  done
  features=${conf_line#*Features=}
  expect_eq "$shown" "node1 $(nproc) $features;node2 $(nproc) $features;node3 $(nproc) $features;" \
    "slurmctld started on the fleet's generated node line and defines node[1-3] with it"
else
  fail "slurmctld refused the fleet's config: $(tail -n 3 "$T/log/slurmctld-fleet.log")"
fi
say "integration tests done"
