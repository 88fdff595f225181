#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Packaging and deployment of the tools (issue 24): the Debian package
# built with dpkg-buildpackage and checked with lintian, `make install`'s
# layout, --version, the man pages, the systemd unit, and the hooks, which
# must never delay a VM's start.
#
# Everything is built in a copy of the tree under a temporary directory:
# the clone is never written to (checked: `git status` before and after).
# The package is built with DEB_BUILD_OPTIONS=nocheck: the unit tests it
# would run are tests/tools-unit.sh's.
#
# The hooks are run against a stand-in for a hung gso-limitsd: a unix
# socket that accepts connections (the kernel's backlog) and never
# answers, as a daemon stopped with SIGSTOP or stuck would.  The real
# `gso-limitsd status` client talks to it.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$GSO_TOP"

LOG=$TEST_LOG_DIR/tools-package
mkdir -p "$LOG"
for c in dpkg-buildpackage dh lintian man groff jq python3 shellcheck; do
	require_command "$c" "package: build tools"
done

tmp=$(mktemp -d /tmp/gso-tools-package.XXXXXX)
defer rm -rf "$tmp"
src=$tmp/src
mkdir -p "$src"

# The files the package is built from, as they are in the work tree
# (tracked and new files, not ignored ones, not build output).
status_before=$(git status --porcelain --untracked-files=all)
git ls-files -z -co --exclude-standard -- debian tools docs LICENSE README.md |
	grep -zv '^tools/build' | tar --null -cf - -T - | tar -xf - -C "$src"

version=$(cat tools/VERSION)

# --- make install, defaults and packager variables ---------------------------
(cd "$src/tools" && make -s -j2 tools build/gso-stream) >"$LOG/make.log" 2>&1 || {
	log_test "package: tools build in the copy" FAIL "see $LOG/make.log"; exit "$ksft_fail"; }

RET=0
d=$tmp/inst-default
make -s -C "$src/tools" install DESTDIR="$d" >>"$LOG/make.log" 2>&1 || check_err $? "make install failed"
for f in usr/local/bin/gso-probe usr/local/bin/gso-doctor usr/local/bin/gso-linkinfo \
	usr/local/bin/gso-hist usr/local/sbin/gso-limitsd \
	usr/local/share/man/man8/gso-limitsd.8 usr/local/share/man/man8/gso-probe.8 \
	usr/local/share/man/man8/gso-doctor.8 usr/local/share/man/man8/gso-linkinfo.8 \
	usr/local/share/man/man1/gso-hist.1 usr/local/lib/systemd/system/gso-limitsd.service \
	usr/local/share/gso-limits-tools/hooks/proxmox-hookscript \
	usr/local/share/gso-limits-tools/hooks/libvirt-qemu-hook etc/default/gso-limitsd; do
	[ -e "$d/$f" ] || check_err 1 "make install: $f missing"
done
outside=$(cd "$d" && find . -mindepth 1 \( -type f -o -type l \) \
	! -path './usr/local/*' ! -path ./etc/default/gso-limitsd)
[ -z "$outside" ] || check_err 1 "make install: outside /usr/local: $outside"
[ ! -e "$d/usr/local/share/doc" ] || check_err 1 "make install: docs installed into share/doc"
# shellcheck disable=SC2016 # $GSO_LIMITSD_OPTS is the unit's, expanded by systemd
grep -qx 'ExecStart=/usr/local/sbin/gso-limitsd $GSO_LIMITSD_OPTS' \
	"$d/usr/local/lib/systemd/system/gso-limitsd.service" ||
	check_err 1 "make install: the unit's ExecStart does not name /usr/local/sbin/gso-limitsd"
grep -q '@SBINDIR@\|@DATADIR@' "$d"/usr/local/share/gso-limits-tools/hooks/* &&
	check_err 1 "make install: a hook keeps an @...@ placeholder"
log_test "package: make install: PREFIX /usr/local by default, DESTDIR, no docs"

RET=0
d=$tmp/inst-usr
make -s -C "$src/tools" install DESTDIR="$d" PREFIX=/usr MANDIR=/usr/share/man \
	SYSTEMDUNITDIR=/lib/systemd/system >>"$LOG/make.log" 2>&1 || check_err $? "make install failed"
for f in usr/bin/gso-probe usr/sbin/gso-limitsd usr/share/man/man8/gso-limitsd.8 \
	lib/systemd/system/gso-limitsd.service; do
	[ -e "$d/$f" ] || check_err 1 "make install PREFIX=/usr: $f missing"
done
[ ! -e "$d/usr/local" ] || check_err 1 "make install PREFIX=/usr: wrote into /usr/local"
log_test "package: make install PREFIX=/usr SYSTEMDUNITDIR=/lib/systemd/system"

# A packager's flags replace only their own part: -I. and the warnings stay;
# WERROR=0 drops -Werror and nothing else.
RET=0
cmd=$(make -s -n -B -C "$src/tools" BUILD="$tmp/flags" CPPFLAGS=-DPKG_CPP CFLAGS=-DPKG_C \
	"$tmp/flags/obj/lib/fail.o" | grep ' -c ')
for w in -I. -DPKG_CPP -DPKG_C -Wall -Wextra -Werror; do
	grep -q -- " $w " <<<"$cmd " || check_err 1 "CPPFLAGS/CFLAGS given: '$w' missing from: $cmd"
done
cmd=$(make -s -n -B -C "$src/tools" BUILD="$tmp/flags" WERROR=0 "$tmp/flags/obj/lib/fail.o" | grep ' -c ')
grep -q -- '-Werror' <<<"$cmd" && check_err 1 "WERROR=0 keeps -Werror: $cmd"
grep -q -- '-Wextra' <<<"$cmd" || check_err 1 "WERROR=0 dropped -Wextra: $cmd"
log_test "package: CPPFLAGS/CFLAGS overridable, WERROR=0 drops -Werror only"

# --- --version -------------------------------------------------------------
RET=0
for t in gso-probe gso-doctor gso-linkinfo gso-hist gso-limitsd gso-stream; do
	out=$("$src/tools/build/$t" --version 2>&1) || check_err $? "$t --version: exit status $?"
	check_eq "$t --version" "$out" "$t $version"
done
log_test "package: --version of every tool is tools/VERSION ($version)"

# --- the Debian package ------------------------------------------------------
RET=0
check_eq "debian/changelog version" "$(cd "$src" && dpkg-parsechangelog -S Version)" "$version"
(cd "$src/tools" && make -s clean)
start=$(date +%s)
# Source and binary (-b and the source package of the copy), so that
# lintian sees both.
(cd "$src" && DEB_BUILD_OPTIONS=nocheck nice -n 5 dpkg-buildpackage -us -uc -j2) \
	>"$LOG/dpkg-buildpackage.log" 2>&1 || check_err $? "dpkg-buildpackage failed: see $LOG/dpkg-buildpackage.log"
deb=$tmp/gso-limits-tools_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || check_err 1 "no $deb"
[ -f "$tmp/virtio-gso-limits_${version}.dsc" ] || check_err 1 "no source package"
log_test "package: dpkg-buildpackage -us -uc ($(( $(date +%s) - start )) s)"
[ -f "$deb" ] || { tests_exit; }

RET=0
changes=("$tmp"/virtio-gso-limits_"${version}"_*.changes)
lintian --info --pedantic "${changes[0]}" >"$LOG/lintian.log" 2>&1 || true
bad=$(grep -E '^(E|W): ' "$LOG/lintian.log" || true)
[ -z "$bad" ] || check_err 1 "lintian: $bad"
grep -q 'virtio-gso-limits_.*\.dsc' "${changes[0]}" || check_err 1 "the .changes names no source package"
log_test "package: lintian (source and binary) reports no error or warning"

RET=0
x=$tmp/deb
dpkg-deb -x "$deb" "$x"
dpkg-deb -e "$deb" "$x/DEBIAN"
for f in usr/bin/gso-probe usr/bin/gso-doctor usr/bin/gso-linkinfo usr/bin/gso-hist \
	usr/sbin/gso-limitsd lib/systemd/system/gso-limitsd.service etc/default/gso-limitsd \
	usr/share/gso-limits-tools/hooks/proxmox-hookscript \
	usr/share/gso-limits-tools/hooks/libvirt-qemu-hook usr/share/doc/gso-limits-tools/copyright; do
	[ -e "$x/$f" ] || check_err 1 "package: $f missing"
done
[ ! -e "$x/usr/local" ] || check_err 1 "package: ships /usr/local"
grep -qx /etc/default/gso-limitsd "$x/DEBIAN/conffiles" ||
	check_err 1 "package: /etc/default/gso-limitsd is not a conffile"
grep -q "deb-systemd-helper enable 'gso-limitsd.service'" "$x/DEBIAN/postinst" ||
	check_err 1 "package: postinst does not enable gso-limitsd.service"
log_test "package: contents, conffile, unit enabled by postinst"

# Every installed program has a man page that renders without a warning.
RET=0
n=0
for b in "$x"/usr/bin/* "$x"/usr/sbin/*; do
	name=${b##*/}
	page=
	for p in "$x"/usr/share/man/man[18]/"$name".[18].gz; do
		if [ -e "$p" ]; then page=$p; fi
	done
	[ -n "$page" ] || { check_err 1 "no man page for $name"; continue; }
	warn=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
	[ -z "$warn" ] || check_err 1 "man --warnings -l $page: $warn"
	warn=$(zcat "$page" | groff -ww -man -Tutf8 -z 2>&1)
	[ -z "$warn" ] || check_err 1 "groff -ww ${page##*/}: $warn"
	n=$((n + 1))
done
log_test "package: a man page per program, rendered without warnings ($n)"

# --- the systemd unit ----------------------------------------------------------
RET=0
unit=$x/lib/systemd/system/gso-limitsd.service
grep -q '^CapabilityBoundingSet=.*CAP_SYS_ADMIN' "$unit" &&
	check_err 1 "the unit grants CAP_SYS_ADMIN (only --netns needs it: a drop-in)"
grep -qx 'EnvironmentFile=-/etc/default/gso-limitsd' "$unit" ||
	check_err 1 "the unit does not read /etc/default/gso-limitsd"
grep -q '^GSO_LIMITSD_OPTS=' "$x/etc/default/gso-limitsd" ||
	check_err 1 "/etc/default/gso-limitsd has no GSO_LIMITSD_OPTS"
log_test "package: unit: no CAP_SYS_ADMIN, EnvironmentFile=/etc/default/gso-limitsd"

if command -v systemd-analyze >/dev/null 2>&1; then
	RET=0
	# The packaged unit with ExecStart pointing at the packaged binary
	# (verify checks that the command exists) and its man page found
	# through MANPATH (verify runs `man gso-limitsd(8)`).
	mkdir -p "$tmp/verify"
	sed "s|/usr/sbin/gso-limitsd|$x/usr/sbin/gso-limitsd|" "$unit" >"$tmp/verify/gso-limitsd.service"
	out=$(MANPATH=$x/usr/share/man systemd-analyze verify "$tmp/verify/gso-limitsd.service" 2>&1) ||
		check_err $? "systemd-analyze verify: $out"
	[ -z "$out" ] || check_err 1 "systemd-analyze verify: $out"
	log_test "package: systemd-analyze verify gso-limitsd.service"
else
	log_test "package: systemd-analyze verify gso-limitsd.service" SKIP \
		"systemd-analyze not installed (no systemd on this machine)"
fi

# --- hooks: never block a VM start ----------------------------------------------
RET=0
shellcheck -s bash tools/hooks/* || check_err $? "shellcheck of tools/hooks"
log_test "package: hooks are shellcheck clean"

# Stand-in for a hung daemon: listens, never accepts, never answers.
hung=$tmp/hung-control
/usr/bin/python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(16)
open(sys.argv[1] + ".ready", "w").close()
time.sleep(600)
' "$hung" &
hung_pid=$!
defer kill "$hung_pid"
slowwait 10 test -e "$hung.ready" || check_err 1 "hung-daemon stand-in did not start"

# The hooks' followers are copies of the hook started in a new session;
# they are this test's processes and are found by the hook's path in the
# temporary directory, which no other process can have in its command line.
kill_followers() {
	local p
	for p in /proc/[0-9]*; do
		{ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | grep -qF "$x/usr/share/gso-limits-tools/hooks/" &&
			kill "${p#/proc/}" 2>/dev/null
	done
	return 0
}
defer kill_followers

hookenv=(GSO_LIMITSD="$x/usr/sbin/gso-limitsd" GSO_LIMITSD_CONTROL="$hung" GSO_HOOK_TIMEOUT=1)
hooks=$x/usr/share/gso-limits-tools/hooks
# run_hook HOOK ARGS...: the hook's output, as its caller reads it (until
# the pipe closes); prints "RC MS OUTPUT".
run_hook() {
	local t0 rc=0 out
	t0=$(date +%s%N)
	out=$(env "${hookenv[@]}" timeout 30 "$@" </dev/null 2>&1) || rc=$?
	echo "$rc $(( ($(date +%s%N) - t0) / 1000000 )) $out"
}

# proxmox_post_start WITH WANT: the Proxmox hookscript's post-start of VM 100,
# the daemon being WITH, exits 0 within its bound and says WANT.  Bound: one
# status query of GSO_HOOK_TIMEOUT (1 s, 2 s) +1 s to kill a client that
# ignores SIGTERM, and bash's start-up: 3 s.
proxmox_post_start() {
	local with=$1 want=$2 rc ms out
	read -r rc ms out < <(run_hook "$hooks/proxmox-hookscript" 100 post-start)
	check_eq "proxmox post-start exit status" "$rc" 0
	[ "$ms" -le 3000 ] || check_err 1 "proxmox post-start took $ms ms with $with (bound 3000)"
	grep -q "$want" <<<"$out" || check_err 1 "proxmox post-start output: $out"
	log_test "package: proxmox hookscript, $with: returns in $ms ms"
}

proxmox_post_start "a hung daemon" 'gso-limitsd did not answer within 1 s'

RET=0
read -r rc ms _ < <(run_hook "$hooks/proxmox-hookscript" 100 pre-start)
check_eq "proxmox pre-start exit status" "$rc" 0
[ "$ms" -le 1000 ] || check_err 1 "proxmox pre-start took $ms ms (bound 1000)"
log_test "package: proxmox hookscript, pre-start: returns at once ($ms ms)"

RET=0
read -r rc ms out < <(run_hook "$hooks/libvirt-qemu-hook" dom1 started begin -)
check_eq "libvirt started exit status" "$rc" 0
[ "$ms" -le 1000 ] || check_err 1 "libvirt hook took $ms ms with a hung daemon (bound 1000)"
[ -z "$out" ] || check_err 1 "libvirt hook printed: $out"
log_test "package: libvirt qemu hook, hung daemon: returns at once ($ms ms)"
kill_followers

# The real daemon answering (in a namespace of its own, no VM): the hook
# reads its status and says it has no tap of the VM, at once.
RET=0
setup_ns DNS
ip netns exec "$DNS" "$x/usr/sbin/gso-limitsd" --control "$tmp/control" --rescan 0 \
	--proxmox-run-dir "$tmp/no-proxmox" >"$LOG/gso-limitsd.log" 2>&1 &
defer kill "$!"
slowwait 10 test -S "$tmp/control" || check_err 1 "gso-limitsd made no control socket ($LOG/gso-limitsd.log)"
hookenv=(GSO_LIMITSD="$x/usr/sbin/gso-limitsd" GSO_LIMITSD_CONTROL="$tmp/control" GSO_HOOK_TIMEOUT=2)
proxmox_post_start "a running daemon without the VM" 'gso-limitsd has no tap of VM 100 yet'
kill_followers

# The clone was not written to.
RET=0
check_eq "git status of the clone" "$(git status --porcelain --untracked-files=all)" "$status_before"
log_test "package: nothing written into the clone"

tests_exit
