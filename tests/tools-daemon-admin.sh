#!/usr/bin/env bash
# gso-limitsd as an administrator (and systemd) runs it, against QMP
# stand-ins (tools/test/qmp-standin.c):
#
#   - one instance per control socket: a second one fails and leaves the
#     first one's socket in place
#   - --once exits non-zero while a tap held by a process is not reached
#     (no QMP), 0 when every held tap is synced
#   - --once --dry-run --json prints one JSON document on stdout
#   - `status --timeout MS` gives up on a daemon that does not answer
#     (a hook must never block a VM's start)
#   - under journald (JOURNAL_STREAM names its stderr) each line carries its
#     syslog priority: <4> for a tap not reached, <6> for a value set
#   - sd_notify: READY=1 on NOTIFY_SOCKET once the first pass is done
#   - a bad command line (an option twice, a value out of range, with
#     trailing junk or empty, a positional argument, options that mean
#     nothing together, an abbreviated long option): the reason on stderr,
#     the usage, exit status 2
# shellcheck disable=SC2317 # helpers run through slowwait look unreachable
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/limitsd.sh
. "$GSO_TOP/tests/harness/limitsd.sh"

limitsd_tools_setup tools-daemon-admin socat "the sd_notify listener"
limitsd_tools_ns admin HOST
h() { ip -n "$HOST" "$@"; }
h link add br0 type bridge
h link add nic0 type veth peer name nic0p
h link set dev nic0 gso_max_size 64000 gso_max_segs 64 master br0 up
h link set dev nic0p up
h link set dev br0 up

# --- the command line: every bad input refused, exit status 2 --------------------
# Each case would otherwise run and fail later with status 1 (the namespace
# $NONS does not exist, the status socket $S/none neither): a case accepted
# by mistake never starts a daemon, and its status is not 2.
NONS=gso-no-such-$$
bad_cmdlines=(
	"--control given twice|--control $S/a --control $S/b --netns $NONS"
	"--dry-run given twice|--dry-run --dry-run --netns $NONS"
	"--verbose given twice|-v --verbose --netns $NONS"
	"--netns $NONS given twice|--netns $NONS --netns $NONS"
	"--qmp-socket $S/q given twice|--qmp-socket $S/q --qmp-socket $S/q --netns $NONS"
	"--settle: milliseconds expected (0..600000), got '100ms'|--settle 100ms --netns $NONS"
	"--settle: milliseconds expected (0..600000), got '600001'|--settle 600001 --netns $NONS"
	"--qmp-timeout: milliseconds expected (1..600000), got '0'|--qmp-timeout 0 --netns $NONS"
	"--rescan: seconds expected (0..86400), got '-1'|--rescan -1 --netns $NONS"
	"--rescan: seconds expected (0..86400), got '10s'|--rescan 10s --netns $NONS"
	"--netns: a name in /run/netns expected, got '../$NONS'|--netns ../$NONS"
	"--timeout is status's|--timeout 500 --netns $NONS"
	"--json needs --once|--json --netns $NONS"
	"--once opens no control socket|--once --control $S/c --netns $NONS"
	"--once makes one pass: --rescan|--once --rescan 5 --netns $NONS"
	"status takes only --control and --timeout, not --netns|status --netns $NONS --control $S/none"
	"status takes only --control and --timeout, not --json|status --json --control $S/none"
	"status --control none: no socket to ask|status --control none"
	"--timeout: milliseconds expected (1..600000), got '0'|status --timeout 0 --control $S/none"
	"unexpected argument 'status': the status command comes first|--netns $NONS status"
	"unexpected argument 'extra'|--netns $NONS extra"
	"unrecognised option '--no-such-option'|--no-such-option --netns $NONS"
	"unrecognised option '--once=yes'|--once=yes --netns $NONS"
	"unrecognised option '-x'|-vx --netns $NONS"
	"ambiguous option '--qmp' (--qmp-socket, --qmp-timeout)|--qmp $S/q --netns $NONS"
	"ambiguous option '--v' (--virsh, --verbose, --version)|--v=x --netns $NONS"
	"--netns needs a value|--netns"
	"--version takes no other argument|--version --once --netns $NONS"
	"abbreviated option '--dry': spell it in full (--dry-run)|--dry --netns $NONS"
	"abbreviated option '--net': spell it in full (--netns)|--net $NONS"
	"abbreviated option '--cont': spell it in full (--control)|--cont=$S/a --netns $NONS"
	"abbreviated option '--cont': spell it in full (--control)|--netns $NONS --cont"
	"abbreviated option '--qmp-t': spell it in full (--qmp-timeout)|--qmp-t 1000 --netns $NONS"
	"abbreviated option '--time': spell it in full (--timeout)|status --time 500 --control $S/none"
	"abbreviated option '--vers': spell it in full (--version)|--vers"
	"abbreviated option '--he': spell it in full (--help)|--he"
)
for case in "${bad_cmdlines[@]}"; do
	want=${case%%|*}
	read -r -a args <<<"${case#*|}"
	rc=0
	err=$(timeout 10 "$LIMITSD" "${args[@]}" 2>&1 >/dev/null) || rc=$?
	check_eq "gso-limitsd ${args[*]}: exit status" "$rc" 2
	grep -qF -- "gso-limitsd: $want" <<<"$err" || check_err 1 "gso-limitsd ${args[*]}: unclear message: $(head -1 <<<"$err")"
	grep -q '^usage: gso-limitsd' <<<"$err" || check_err 1 "gso-limitsd ${args[*]}: no usage on stderr"
done
for empty in --netns --control --virsh --proxmox-run-dir --libvirt-run-dir --qmp-socket; do
	rc=0
	err=$(timeout 10 "$LIMITSD" "$empty" "" --netns "$NONS" 2>&1 >/dev/null) || rc=$?
	check_eq "gso-limitsd $empty '': exit status" "$rc" 2
	grep -qF -- "gso-limitsd: $empty: empty value" <<<"$err" || check_err 1 "$empty '': unclear message: $(head -1 <<<"$err")"
done
log_test "command line: $((${#bad_cmdlines[@]} + 6)) bad ones refused with the reason and exit status 2"

standin() { # NAME ENV... -- ARGS...
	local name=$1 envs=()
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	start_ready "$LOG/$name.out" 'qmp-standin: ready' \
		ip netns exec "$HOST" env QMP_STANDIN_BRIDGE=br0 "${envs[@]}" "$STANDIN" "$@"
}
standin vm100 -- -id 100 -pidfile "$S/100.pid" \
	-chardev "socket,id=qmp,path=$S/100.qmp,server=on,wait=off" -mon chardev=qmp,mode=control \
	-netdev type=tap,id=net0,ifname=tap100i0 -device virtio-net-pci,netdev=net0,id=net0
standin vm101 QMP_STANDIN_NEGOTIATED=0 -- -id 101 -pidfile "$S/101.pid" \
	-chardev "socket,id=qmp,path=$S/101.qmp,server=on,wait=off" -mon chardev=qmp,mode=control \
	-netdev type=tap,id=net0,ifname=tap101i0 -device virtio-net-pci,netdev=net0,id=net0
ARGS=(--netns "$HOST" --proxmox-run-dir "$S" --qmp-timeout 1000)

# --- --once exit codes and JSON ---------------------------------------------------
rc=0
"$LIMITSD" "${ARGS[@]}" --once >"$LOG/once-ok.log" 2>&1 || rc=$?
check_eq "--once, every held tap synced: exit status" "$rc" 0
rc=0
out=$("$LIMITSD" "${ARGS[@]}" --once --dry-run --json 2>"$LOG/dry-json.err") || rc=$?
jq -e . >/dev/null <<<"$out" || check_err 1 "--once --dry-run --json: not JSON: $(head -c 300 <<<"$out")"
check_eq "--once --dry-run --json: tap100i0's state" \
	"$(jq -r '.namespaces[0].taps[] | select(.ifname == "tap100i0") | .state' <<<"$out" 2>/dev/null)" dry_run
grep -q "would set $HOST/tap100i0" "$LOG/dry-json.err" || check_err 1 "the 'would set' line is not on stderr"
log_test "--once --dry-run --json: one JSON document on stdout"

# A QEMU-like holder without a QMP socket: held, never reached.
standin noqmp -- -netdev tap,id=n0,ifname=tapnoqmp -device virtio-net-pci,netdev=n0
rc=0
"$LIMITSD" "${ARGS[@]}" --once --json >"$LOG/once-unreached.json" 2>"$LOG/once-unreached.log" || rc=$?
check_eq "--once with an unreached tap: exit status" "$rc" 1
check_eq "--once --json: tapnoqmp's state" \
	"$(jq -r '.namespaces[0].taps[] | select(.ifname == "tapnoqmp") | .state' "$LOG/once-unreached.json")" no_endpoint
log_test "--once fails while a held tap is not reached"

# --- CAP_SYS_ADMIN: only to enter another namespace (--netns) ----------------------
rc=0
ip netns exec "$HOST" setpriv --bounding-set=-sys_admin "$LIMITSD" --proxmox-run-dir "$S" \
	--once --dry-run >"$LOG/nocap-own.log" 2>&1 || rc=$?
grep -q "would set tap100i0" "$LOG/nocap-own.log" ||
	check_err 1 "without CAP_SYS_ADMIN, in its own namespace (rc $rc): $(tail -2 "$LOG/nocap-own.log")"
rc=0
setpriv --bounding-set=-sys_admin "$LIMITSD" "${ARGS[@]}" --once >"$LOG/nocap-netns.log" 2>&1 || rc=$?
check_eq "--netns without CAP_SYS_ADMIN: exit status" "$rc" 1
grep -q "entering another namespace needs CAP_SYS_ADMIN" "$LOG/nocap-netns.log" ||
	check_err 1 "unclear message: $(cat "$LOG/nocap-netns.log")"
log_test "CAP_SYS_ADMIN needed only for --netns, and said so"

# --- single instance, journald priorities, sd_notify ------------------------------
socat -u "UNIX-RECV:$S/notify" "OPEN:$S/notify.out,creat,append" &
defer "kill $!"
slowwait 5 test -S "$S/notify"
: >"$LOG/daemon.log"
stream=$(stat -c '%d:%i' "$LOG/daemon.log")
JOURNAL_STREAM=$stream NOTIFY_SOCKET=$S/notify \
	"$LIMITSD" "${ARGS[@]}" --control "$S/ctl" --settle 50 >>"$LOG/daemon.log" 2>&1 &
FIRST=$!
defer "kill $FIRST"
slowwait 5 test -S "$S/ctl" || check_err 1 "the daemon did not start: $(cat "$LOG/daemon.log")"
slowwait 5 grep -qs 'READY=1' "$S/notify.out" || check_err 1 "no READY=1 on NOTIFY_SOCKET"
log_test "sd_notify: READY=1 once the first pass is done"

slowwait 5 grep -q "^<6>gso-limitsd: $HOST/tap100i0: set size 64000 segs 64" "$LOG/daemon.log" ||
	check_err 1 "no <6> (info) line for the value set: $(head -5 "$LOG/daemon.log")"
slowwait 5 grep -q "^<4>gso-limitsd: $HOST/tapnoqmp: " "$LOG/daemon.log" ||
	check_err 1 "no <4> (warning) line for the tap not reached: $(head -5 "$LOG/daemon.log")"
log_test "journald: lines carry their syslog priority"

rc=0
timeout 10 "$LIMITSD" "${ARGS[@]}" --control "$S/ctl" >"$LOG/second.log" 2>&1 || rc=$?
if [ "$rc" = 0 ] || [ "$rc" = 124 ]; then
	check_err 1 "a second instance on the same socket: exit status $rc"
fi
grep -q "another gso-limitsd runs with control socket $S/ctl" "$LOG/second.log" ||
	check_err 1 "unclear message: $(cat "$LOG/second.log")"
test -S "$S/ctl" || check_err 1 "the first instance's socket is gone"
kill -0 "$FIRST" || check_err 1 "the first instance died"
jq -e '.namespaces' <("$LIMITSD" status --control "$S/ctl") >/dev/null ||
	check_err 1 "the first instance no longer answers on its socket"
log_test "a second instance fails and leaves the first one's socket"

# --- whether the guest negotiated the feature -------------------------------------
# x-query-virtio-status after a set: vm100's guest accepted the feature, vm101's
# has not (yet); asked again at each --rescan until it has.
negotiated() { "$LIMITSD" status --control "$S/ctl" | jq -r --arg t "$1" '.namespaces[0].taps[] | select(.ifname == $t) | .negotiated'; }
negotiated_is() { [ "$(negotiated "$1")" = "$2" ]; }
slowwait 5 negotiated_is tap100i0 true || check_err 1 "tap100i0 negotiated: $(negotiated tap100i0), want true"
slowwait 5 negotiated_is tap101i0 false || check_err 1 "tap101i0 negotiated: $(negotiated tap101i0), want false"
log_test "status: whether each guest negotiated the feature"

# --- status --timeout --------------------------------------------------------------
# A daemon that accepts and never answers (a QMP stand-in told to hang).
standin stuck QMP_STANDIN_STUCK=1 QMP_STANDIN_SOCKET="$S/stuck" -- -name stuck
t0=$(date +%s%N)
rc=0
timeout 10 "$LIMITSD" status --control "$S/stuck" --timeout 500 >"$LOG/stuck.out" 2>&1 || rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ "$rc" = 0 ] || [ "$rc" = 124 ]; then
	check_err 1 "status on a stuck daemon: exit status $rc after $ms ms"
fi
[ "$ms" -lt 3000 ] || check_err 1 "status --timeout 500 took $ms ms"
grep -q "no answer from the daemon at $S/stuck within 0.5 s" "$LOG/stuck.out" ||
	check_err 1 "unclear message: $(cat "$LOG/stuck.out")"
log_test "status --timeout: gives up on a daemon that does not answer ($ms ms)"

tests_exit
