#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Debian package (make deb) on a fresh Debian 12: a chroot of a pristine debootstrap'd
# rootfs tarball (the one ../shared/tools/fresh.sh caches), with the host's apt sources. Needs
# root and the network to the Debian mirror; exits 77 (skipped) without them.
#
#   deb_fresh_test.sh DLCHECK_DEB [ROOTFS_TAR]   (default: /tmp/fresh-cache/debian-bookworm-minbase-amd64.tar)
#
# What it checks: lintian reports no error (on the host, where it is installed);
# `apt-get install ./dlcheck_*.deb` installs on a system without the build
# dependencies (no -dev package comes with it); `dlcheck check` runs; the command of
# dlcheck.service writes the textfile into node_exporter's directory; Debian's
# prometheus-node-exporter, started on 127.0.0.1, serves dlcheck_check_status; bash completion
# offers the commands; `apt-get purge` leaves none of the package's files, /etc/dlcheck or the
# textfile. The chroot has only /proc and /sys (read-only) mounted and no systemd: no daemon starts by itself
# (policy-rc.d), the exporter is started and stopped here by pid.
# SC2015: `check && ok || fail` is meant (ok only prints); SC2016: the single-quoted $ are for
# dpkg-query and the shell inside the chroot.
# shellcheck disable=SC2015,SC2016
set -uo pipefail

DEB=$(realpath "${1:?usage: deb_fresh_test.sh DLCHECK_DEB [ROOTFS_TAR]}")
TAR=${2:-/tmp/fresh-cache/debian-bookworm-minbase-amd64.tar}
# What an admin's repository checks first: no lintian error (E:) in the package. Run on the host
# (lintian is in setup.sh's tests group), before the chroot, so a skipped chroot hides nothing.
if command -v lintian > /dev/null; then
  lint=$(lintian --tag-display-limit 0 "$DEB" 2>&1)
  if grep -q '^E: ' <<< "$lint"; then
    echo "FAIL: lintian reports errors:"; grep '^E: ' <<< "$lint"; exit 1
  fi
  echo "ok: lintian reports no error ($(grep -c '^W: ' <<< "$lint") warnings)"
else
  echo "note: lintian is not installed (bash scripts/setup.sh tests): the package is not linted"
fi
if [[ $EUID -ne 0 ]]; then echo "SKIPPED: needs root (chroot, mount)"; exit 77; fi
[[ -s $TAR ]] || { echo "SKIPPED: no rootfs tarball $TAR (../shared/tools/fresh.sh builds one)"; exit 77; }

R=$(mktemp -d /tmp/dlcheck-deb.XXXXXX)
failures=0
exporter=""
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
in_root() { chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

teardown() {
  [[ -n $exporter ]] && kill -TERM "$exporter" 2> /dev/null
  local p
  for p in /proc/[0-9]*; do   # anything still running inside the chroot (only ours can be)
    [[ $(readlink "$p/root" 2> /dev/null) == "$R" ]] && kill -KILL "${p#/proc/}" 2> /dev/null
  done
  sleep 0.2
  local m
  for m in "$R/sys" "$R/proc"; do umount "$m" 2> /dev/null || umount -l "$m" 2> /dev/null; done
  if grep -q " $R/" /proc/self/mounts; then
    echo "FAIL: mounts left under $R"; failures=$((failures + 1))
  else
    rm -rf --one-file-system "$R"
  fi
}
trap 'teardown; [[ $failures -eq 0 ]] && echo PASSED || echo "FAILED ($failures)"; exit $((failures > 0))' EXIT

tar -C "$R" --numeric-owner -xpf "$TAR" || { fail "cannot unpack $TAR"; exit 1; }
chmod 755 "$R"
cp /etc/apt/sources.list.d/*.sources "$R/etc/apt/sources.list.d/" 2> /dev/null
[[ -f /etc/apt/sources.list ]] && cp /etc/apt/sources.list "$R/etc/apt/sources.list"
rm -f "$R/etc/resolv.conf"; cat /etc/resolv.conf > "$R/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' > "$R/usr/sbin/policy-rc.d"; chmod 755 "$R/usr/sbin/policy-rc.d"
mount -t proc proc "$R/proc" || { fail "cannot mount /proc"; exit 1; }
# hwloc reads the CPU topology from /sys: bound in, read-only.
mount --bind /sys "$R/sys" && mount -o remount,bind,ro "$R/sys" || { fail "cannot bind /sys"; exit 1; }
cp "$DEB" "$R/root/"
deb=/root/$(basename "$DEB")

# --- install --------------------------------------------------------------------------------------
before=$(in_root dpkg-query -W -f '${Package}\n' | sort)
if ! in_root apt-get update -qq > "$R/root/apt.log" 2>&1; then
  echo "SKIPPED: apt-get update failed in the chroot (no mirror?)"; tail -n 3 "$R/root/apt.log"; exit 77
fi
if in_root apt-get install -y -qq --no-install-recommends "$deb" prometheus-node-exporter >> "$R/root/apt.log" 2>&1; then
  ok "apt-get install ./$(basename "$DEB") on a fresh Debian 12"
else
  fail "apt-get install: $(tail -n 5 "$R/root/apt.log")"; exit 1
fi
added=$(comm -13 <(echo "$before") <(in_root dpkg-query -W -f '${Package}\n' | sort))
dev=$(grep -E -- '-dev$' <<< "$added" | tr '\n' ' ')
[[ -z $dev ]] && ok "no -dev package installed with it" || fail "-dev packages installed: $dev"
grep -qx libdnnl2 <<< "$added" && ok "libdnnl2 came as a dependency" || fail "libdnnl2 not installed"

# --- run ------------------------------------------------------------------------------------------
in_root dlcheck check --stable > "$R/root/check.out"; rc=$?
if ((rc <= 2)) && head -n1 "$R/root/check.out" | grep -q '^DLCHECK '; then
  ok "dlcheck check runs (exit $rc): $(head -n1 "$R/root/check.out")"
else
  fail "dlcheck check: exit $rc, $(head -n3 "$R/root/check.out")"
fi
[[ -f $R/etc/dlcheck/check.conf ]] && ok "/etc/dlcheck/check.conf installed" || fail "no /etc/dlcheck/check.conf"
grep -qx /etc/dlcheck/check.conf "$R/var/lib/dpkg/info/dlcheck.conffiles" && ok "check.conf is a conffile" || fail "check.conf is not a conffile"
# The service's own command line, as systemd would run it.
exec_start=$(sed -n 's/^ExecStart=//p' "$R/lib/systemd/system/dlcheck.service")
textfile=/var/lib/prometheus/node-exporter/dlcheck.prom
# shellcheck disable=SC2086  # the unit's words
in_root $exec_start; rc=$?
if ((rc <= 3)) && grep -q '^dlcheck_check_status [0-3]$' "$R$textfile"; then
  ok "the service's command wrote $textfile (exit $rc)"
else
  fail "the service's command: exit $rc, $(head -n 3 "$R$textfile" 2> /dev/null)"
fi
for f in "$R"/var/lib/prometheus/node-exporter/.dlcheck*; do
  [[ -e $f ]] && fail "a temporary file was left beside the textfile: $f"
done

port=$((19000 + $$ % 900))
chroot "$R" /usr/bin/prometheus-node-exporter --web.listen-address="127.0.0.1:$port" \
  --collector.disable-defaults --collector.textfile \
  --collector.textfile.directory=/var/lib/prometheus/node-exporter > "$R/root/exporter.log" 2>&1 &
exporter=$!
metrics=""
for _ in $(seq 40); do
  metrics=$(curl -s "http://127.0.0.1:$port/metrics" 2> /dev/null) && [[ -n $metrics ]] && break
  sleep 0.25
done
if grep -q '^dlcheck_check_status [0-3]$' <<< "$metrics" && grep -q '^node_textfile_scrape_error 0$' <<< "$metrics"; then
  ok "node_exporter serves dlcheck_check_status from the textfile, no scrape error"
else
  fail "node_exporter's /metrics: $(grep -E '^(dlcheck_check_status|node_textfile_scrape_error)' <<< "$metrics")"
fi
kill -TERM "$exporter" 2> /dev/null; wait "$exporter" 2> /dev/null; exporter=""

completion=$(in_root bash -c '. /usr/share/bash-completion/completions/dlcheck; COMP_WORDS=(dlcheck ch); COMP_CWORD=1; _dlcheck; echo "${COMPREPLY[*]}"')
[[ $completion == check ]] && ok "bash completion: dlcheck ch<TAB> -> check" || fail "bash completion gave '$completion'"
completion=$(in_root bash -c '. /usr/share/bash-completion/completions/dlcheck; COMP_WORDS=(dlcheck check --emi); COMP_CWORD=2; _dlcheck; echo "${COMPREPLY[*]}"')
[[ $completion == --emit ]] && ok "bash completion: check --emi<TAB> -> --emit" || fail "bash completion gave '$completion'"

# --- purge ----------------------------------------------------------------------------------------
mapfile -t files < <(in_root dpkg-query -L dlcheck | while read -r f; do [[ -f $R$f ]] && echo "$f"; done)
if in_root apt-get purge -y -qq dlcheck >> "$R/root/apt.log" 2>&1; then ok "apt-get purge dlcheck"; else fail "purge failed"; fi
left=()
for f in "${files[@]}" /etc/dlcheck "$textfile"; do [[ -e $R$f ]] && left+=("$f"); done
((${#left[@]} == 0)) && ok "purge left nothing (${#files[@]} files, /etc/dlcheck, the textfile)" || fail "left after purge: ${left[*]}"
