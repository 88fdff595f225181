#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# gso-limitsd at scale, against the first design's cost, in one run (issue 13
# item 5).  No VMs: a namespace with one bridge and SCALE_TAPS Proxmox VMs
# played by ONE QMP stand-in process (tools/test/qmp-standin.c with
# QMP_STANDIN_PROXMOX_DIR: a tap tap<VMID>i0 and a socket VMID.qmp per VM,
# each tap put into the bridge as Proxmox's tap script does), and the first
# design's per-QEMU walkers played by ONE old-walker process (a socket, a
# dump and a walk per VM, one after the other).  Three processes in all: the
# machine is shared, nothing in make check starts hundreds.
#
#   SCALE_TAPS=100 (default, make check: a correctness test, ~20 s)
#   GSO_BENCH=1 SCALE_TAPS=1000 tests/run.sh tests/tools-daemon-scale.sh
#                  (docs/daemon.md's figures; more than 100 needs GSO_BENCH=1)
#
#   1. boot storm: the daemon runs; the stand-in creates SCALE_TAPS taps in a
#      burst.  Every VM must be set, with bounded work: one QMP conversation
#      per VM, and link dumps / proc scans bounded by the settled bursts.
#   2. one port change, new design: an uplink with lower limits joins the
#      bridge; every VM must be set to them.  Cost: the daemon's CPU and the
#      stand-ins' CPU (QEMU's side of QMP), wall time to the last qom-set.
#   3. the same change, old design: the daemon stopped, old-walker playing
#      every QEMU with host_gso_auto (listen to every link event, dump the
#      whole table, walk its own path).  Cost: its CPU (the sum of what the
#      QEMUs would spend), wall time to the last new value (an upper bound:
#      the QEMUs would walk in parallel on a machine with more cores).
# CPU is each process's time on CPU (/proc/PID/schedstat), system time in
# netlink dumps included.  Results: $LOG/scale.txt and scale.json.
#
# Both uplinks exist before the taps (lower ifindex): the path walk counts
# at most 256 bridge ports, in ifindex order (docs/daemon.md, known limits).
# shellcheck disable=SC2317 # helpers run through slowwait look unreachable
# shellcheck disable=SC2016 # the bash -c scripts expand their own $1..$3
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/limitsd.sh
. "$GSO_TOP/tests/harness/limitsd.sh"

N=${SCALE_TAPS:-100}
if [ "$N" -gt 100 ] && [ "${GSO_BENCH:-0}" != 1 ]; then
	log_test "scale: SCALE_TAPS=$N" FAIL "more than 100 taps only with GSO_BENCH=1 (not in make check)"
	exit "$ksft_fail"
fi
WALKER=$GSO_TOP/tools/build/old-walker
limitsd_tools_setup tools-daemon-scale

# A thousand processes with a few descriptors each, and one holding a socket per VM.
ulimit -n 65536 2>/dev/null || true
limitsd_tools_ns scale BENCH
SETLOG=$S/qom-set.log
WALKLOG=$S/walk.log
: >"$SETLOG"
: >"$WALKLOG"

b() { ip -n "$BENCH" "$@"; }
b link add br0 type bridge
# nic0: the uplink (r8169-like); nic1, nic2: uplinks that join during the run.
for spec in "nic0 64000 64" "nic1 60000 60" "nic2 56000 56"; do
	read -r nic size segs <<<"$spec"
	b link add "$nic" type veth peer name "${nic}p"
	b link set dev "$nic" gso_max_size "$size" gso_max_segs "$segs" up
	b link set dev "${nic}p" up
done
b link set dev nic0 master br0
b link set dev br0 up

now() { date +%s.%N; }
# cpu_ns PIDFILE: time on CPU of the processes listed, in ns.
cpu_ns() {
	sed 's|.*|/proc/&/schedstat|' "$1" | { xargs cat 2>/dev/null || true; } |
		awk '{ s += $1 } END { printf "%.0f\n", s }'
}
# last_t FILE PATTERN: the latest t= stamp of the lines matching PATTERN.
last_t() { { grep -- "$2" "$1" || true; } | sed -n 's/.* t=\([0-9.]*\).*/\1/p' | sort -n | tail -1; }
count() { grep -c -- "$2" "$1" || true; }
count_at_least() { [ "$(count "$1" "$2")" -ge "$3" ]; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 1000 }'; }
status() { "$LIMITSD" status --control "$S/ctl"; }
# quiet: wait (at most 30 s) for a second without link events: a storm's
# bridges and taps keep announcing for a while after the last VM is set.
quiet() {
	local n m i
	for ((i = 0; i < 30; i++)); do
		n=$(wc -l <"$S/monitor.txt")
		sleep 1
		m=$(wc -l <"$S/monitor.txt")
		[ "$n" = "$m" ] && return 0
	done
}
counter() { jq -r ".counters.$2" <<<"$1"; }
# Wait generously: TCG-free but 2 shared cores, and N processes to schedule.
WAIT=$((30 + N / 10))

# Every link event of the namespace, stamped: how many each phase saw.
ip netns exec "$BENCH" ip -ts monitor link >"$S/monitor.txt" 2>&1 &
defer "kill $!"
# events_between T0 T1: link messages stamped in [T0, T1] (epoch seconds; ip -ts
# prints the local time of day, so both are compared as seconds since midnight).
events_between() {
	local a b
	a=$(date -d "@$1" +%H:%M:%S.%N) b=$(date -d "@$2" +%H:%M:%S.%N)
	awk -v a="$a" -v b="$b" '
		function sec(t, p) { split(t, p, ":"); return p[1] * 3600 + p[2] * 60 + p[3] }
		BEGIN { lo = sec(a); hi = sec(b) }
		/^\[/ { t = substr($1, 13, 15); s = sec(t); if (s >= lo && s <= hi) n++ }
		END { print n + 0 }' "$S/monitor.txt"
}

# --- 1. boot storm -----------------------------------------------------------------
# A long QMP timeout: a thousand processes starting on 2 shared cores answer
# late, and a timeout's retry backs off (1, 2, 4 ... s), which the storm's
# figures would then measure instead of the daemon.
"$LIMITSD" --netns "$BENCH" --control "$S/ctl" --proxmox-run-dir "$S" --rescan 0 --qmp-timeout 15000 \
	>"$LOG/daemon.log" 2>&1 &
DAEMON=$!
defer "kill $DAEMON"
echo "$DAEMON" >"$S/daemon.pid"
slowwait 5 test -S "$S/ctl"
st0=$(status)

# The VMs' arguments: Proxmox's -netdev/-device per VM (the VMID in the ids,
# one process holds them all); their sockets $S/VMID.qmp.
vm_args=()
for ((v = 1000; v < 1000 + N; v++)); do
	vm_args+=(-netdev "type=tap,id=net$v,ifname=tap${v}i0,script=/var/lib/qemu-server/pve-bridge,vhost=on"
		-device "virtio-net-pci,mac=BC:24:11:00:00:00,netdev=net$v,id=net$v")
done
t0=$(now)
ip netns exec "$BENCH" env QMP_STANDIN_LOG="$SETLOG" QMP_STANDIN_BRIDGE=br0 \
	QMP_STANDIN_PROXMOX_DIR="$S" "$STANDIN" -name vms "${vm_args[@]}" \
	>/dev/null 2>"$S/standin-errors.log" &
echo $! >"$S/standins.pid"
defer "kill $!"
slowwait "$WAIT" count_at_least "$SETLOG" "size=64000 segs=64" "$N" ||
	check_err 1 "storm: $(count "$SETLOG" "size=64000 segs=64") of $N VMs set in ${WAIT} s; stand-ins that failed: $(cat "$S/standin-errors.log")"
t1=$(last_t "$SETLOG" "size=64000 segs=64")
st1=$(status)
storm_ms=$(ms "$t0" "$t1")
# Starting N processes takes most of that on 2 cores: the daemon's part is
# from the last stand-in ready (its tap in the bridge) to the last VM set.
after_ready_ms=$(ms "$(last_t "$SETLOG" " ready ")" "$t1")
storm_qmp=$(( $(counter "$st1" qmp_commands) - $(counter "$st0" qmp_commands) ))
storm_conn=$(( $(counter "$st1" qmp_connects) - $(counter "$st0" qmp_connects) ))
storm_dumps=$(( $(counter "$st1" dumps) - $(counter "$st0" dumps) ))
storm_bursts=$(( $(counter "$st1" bursts) - $(counter "$st0" bursts) ))
storm_scans=$(( $(counter "$st1" proc_scans) - $(counter "$st0" proc_scans) ))
storm_events=$(( $(counter "$st1" events) - $(counter "$st0" events) ))
storm_walks=$(( $(counter "$st1" recomputes) - $(counter "$st0" recomputes) ))
storm_cpu=$(cpu_ns "$S/daemon.pid")
# Bounded: one conversation (qmp_capabilities + qom-set) per VM, retries only
# for a socket not listening yet; dumps and scans one per settled burst.
[ "$storm_conn" -le $((N + N / 10)) ] || check_err 1 "storm: $storm_conn QMP connections for $N VMs"
# A QEMU's first conversation also asks which interface its device has
# (qom-get host_gso_max, docs/qemu.md) and, after the set, whether the guest
# negotiated the feature (x-query-virtio-status), and before that which device
# is on the tap, from QEMU itself ("info network", qom-get netdev on the
# command line's device id): six commands, then two.
[ "$storm_qmp" -le $((6 * storm_conn)) ] || check_err 1 "storm: $storm_qmp QMP commands"
[ "$storm_dumps" -eq "$storm_bursts" ] || check_err 1 "storm: $storm_dumps dumps for $storm_bursts bursts"
[ "$storm_scans" -le "$storm_bursts" ] || check_err 1 "storm: $storm_scans /proc scans for $storm_bursts bursts"
[ "$storm_bursts" -lt "$storm_events" ] || check_err 1 "storm: $storm_bursts bursts for $storm_events events: not coalesced"
log_test "boot storm: $N VMs set, ${storm_conn} QMP conversations, ${storm_dumps} dumps for ${storm_events} events"

# --- 2. one port change, new design --------------------------------------------------
quiet
st1=$(status)
cpu_d0=$(cpu_ns "$S/daemon.pid")
cpu_s0=$(cpu_ns "$S/standins.pid")
t0=$(now)
b link set dev nic1 master br0
slowwait "$WAIT" count_at_least "$SETLOG" "size=60000 segs=60" "$N" ||
	check_err 1 "port change: $(count "$SETLOG" "size=60000 segs=60") of $N VMs set"
t1=$(last_t "$SETLOG" "size=60000 segs=60")
sleep 0.5 # a late extra conversation would show in the counters
new_cpu_d=$(( $(cpu_ns "$S/daemon.pid") - cpu_d0 ))
new_cpu_s=$(( $(cpu_ns "$S/standins.pid") - cpu_s0 ))
st2=$(status)
new_ms=$(ms "$t0" "$t1")
new_events=$(events_between "$t0" "$(now)")
new_qmp=$(( $(counter "$st2" qmp_commands) - $(counter "$st1" qmp_commands) ))
new_dumps=$(( $(counter "$st2" dumps) - $(counter "$st1" dumps) ))
new_walks=$(( $(counter "$st2" recomputes) - $(counter "$st1" recomputes) ))
check_eq "port change: QMP commands (qmp_capabilities + qom-set per VM)" "$new_qmp" $((2 * N))
log_test "port change, daemon: $N VMs set in ${new_ms} ms, ${new_dumps} dump(s), ${new_qmp} QMP commands"

# --- 2b. a port change, the daemon as before issue 24 item 7 --------------------------
# The code before walked every tap's path on its own (a thousand walks over a
# thousand ports for one change) and looked at every tap on each turn of its
# event loop (each QMP reply is one); the same binary does both with
# GSO_LIMITSD_UNOPTIMISED=1: the comparison in one run.  The
# restarted daemon sets every VM again first; then nic1 leaves (64000/64).
kill "$DAEMON"
wait "$DAEMON" 2>/dev/null || true
GSO_LIMITSD_UNOPTIMISED=1 "$LIMITSD" --netns "$BENCH" --control "$S/ctl" --proxmox-run-dir "$S" \
	--rescan 0 --qmp-timeout 15000 >>"$LOG/daemon.log" 2>&1 &
DAEMON=$!
defer "kill $DAEMON"
echo "$DAEMON" >"$S/daemon.pid"
slowwait "$WAIT" count_at_least "$SETLOG" "size=60000 segs=60" $((2 * N)) ||
	check_err 1 "unoptimised daemon: $(count "$SETLOG" "size=60000 segs=60") of $((2 * N)) sets"
quiet
stb=$(status)
cpu_b0=$(cpu_ns "$S/daemon.pid")
b link set dev nic1 nomaster
slowwait "$WAIT" count_at_least "$SETLOG" "size=64000 segs=64" $((2 * N)) ||
	check_err 1 "unoptimised, port change: $(( $(count "$SETLOG" "size=64000 segs=64") - N )) of $N VMs set"
sleep 0.5
each_cpu_d=$(( $(cpu_ns "$S/daemon.pid") - cpu_b0 ))
each_walks=$(( $(counter "$(status)" recomputes) - $(counter "$stb" recomputes) ))
log_test "port change, daemon as before item 7: $N VMs set, ${each_walks} walks"
b link set dev nic1 master br0
slowwait "$WAIT" count_at_least "$SETLOG" "size=60000 segs=60" $((3 * N)) ||
	check_err 1 "unoptimised daemon: nic1 back: $(count "$SETLOG" "size=60000 segs=60") of $((3 * N)) sets"
quiet
memo_ratio=$(awk -v o="$each_cpu_d" -v n="$new_cpu_d" 'BEGIN { printf "%.1f", n ? o / n : 0 }')

# --- 3. the same change, old design ---------------------------------------------------
kill "$DAEMON"
wait "$DAEMON" 2>/dev/null || true
taps=()
for ((v = 1000; v < 1000 + N; v++)); do taps+=("tap${v}i0"); done
ip netns exec "$BENCH" "$WALKER" "${taps[@]}" >>"$WALKLOG" 2>&1 &
echo $! >"$S/walkers.pid"
defer "kill $!"
# Each walker prints its tap's limits once at start (60000/60 now).
slowwait "$WAIT" count_at_least "$WALKLOG" " 60000 60 " "$N" ||
	check_err 1 "old design: $(count "$WALKLOG" " 60000 60 ") of $N walkers started"
quiet
# walks_sum: the walkers' walks so far (SIGUSR1; old-walker answers between
# bursts, so this also waits for one in progress to end); their sum.
walks_sum() {
	local before
	before=$(count "$WALKLOG" "walks=")
	xargs kill -USR1 <"$S/walkers.pid"
	slowwait "$WAIT" count_at_least "$WALKLOG" "walks=" $((before + N)) || true
	grep -o 'walks=[0-9]*' "$WALKLOG" | tail -n "$N" | awk -F= '{ s += $2 } END { print s + 0 }'
}
walks0=$(walks_sum)
cpu_w0=$(cpu_ns "$S/walkers.pid")
t0=$(now)
b link set dev nic2 master br0
slowwait "$WAIT" count_at_least "$WALKLOG" " 56000 56 " "$N" ||
	check_err 1 "old design: $(count "$WALKLOG" " 56000 56 ") of $N walkers followed"
t1=$(last_t "$WALKLOG" " 56000 56 ")
sleep 0.5
old_ms=$(ms "$t0" "$t1")
old_events=$(events_between "$t0" "$(now)")
old_cpu=$(( $(cpu_ns "$S/walkers.pid") - cpu_w0 ))
old_walks=$(( $(walks_sum) - walks0 ))
xargs kill <"$S/walkers.pid" 2>/dev/null || true
log_test "port change, old design: $N walkers followed in ${old_ms} ms"

new_cpu=$((new_cpu_d + new_cpu_s))
ratio=$(awk -v o="$old_cpu" -v n="$new_cpu" 'BEGIN { printf "%.1f", n ? o / n : 0 }')
{
	echo "gso-limitsd scale benchmark, $N taps on one bridge ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $(uname -r))"
	echo "boot storm: $N taps created in a burst; all set after ${storm_ms} ms, ${after_ready_ms} ms after the last one was up"
	echo "  link events ${storm_events}, settled bursts ${storm_bursts}, dumps ${storm_dumps}, /proc scans ${storm_scans}, path walks ${storm_walks}"
	echo "  QMP conversations ${storm_conn}, QMP commands ${storm_qmp}; daemon CPU $((storm_cpu / 1000000)) ms"
	echo "one port change (an uplink with lower limits joins the bridge):"
	printf '  %-34s %10s %10s %12s %8s\n' design "wall ms" "CPU ms" dumps walks
	printf '  %-34s %10s %10s %12s %8s\n' "gso-limitsd (daemon + QEMU side)" "$new_ms" "$(( new_cpu / 1000000 ))" "$new_dumps" "$new_walks"
	printf '  %-34s %10s %10s %12s %8s\n' "  of which the daemon" "" "$(( new_cpu_d / 1000000 ))" "" ""
	printf '  %-34s %10s %10s %12s %8s\n' "  the daemon as before (item 7)" "" "$(( each_cpu_d / 1000000 ))" "" "$each_walks"
	printf '  %-34s %10s %10s %12s %8s\n' "every QEMU walks (first design)" "$old_ms" "$(( old_cpu / 1000000 ))" "$old_walks" "$old_walks"
	echo "  link events: ${new_events} (daemon run), ${old_events} (first design run)"
	echo "  CPU ratio old/new: ${ratio}x"
	echo "  daemon CPU ratio, before / now: ${memo_ratio}x"
} | tee "$LOG/scale.txt"
cp "$S/monitor.txt" "$LOG/link-events.txt"
jq -n --argjson n "$N" --argjson storm_ms "$storm_ms" --argjson storm_after_ready_ms "$after_ready_ms" --argjson storm_events "$storm_events" \
	--argjson storm_bursts "$storm_bursts" --argjson storm_dumps "$storm_dumps" \
	--argjson storm_scans "$storm_scans" --argjson storm_conn "$storm_conn" \
	--argjson storm_qmp "$storm_qmp" --argjson storm_cpu_ns "$storm_cpu" \
	--argjson new_ms "$new_ms" --argjson new_cpu_ns "$new_cpu" --argjson new_daemon_cpu_ns "$new_cpu_d" \
	--argjson new_dumps "$new_dumps" --argjson new_qmp "$new_qmp" \
	--argjson old_ms "$old_ms" --argjson old_cpu_ns "$old_cpu" --argjson old_walks "$old_walks" \
	--argjson walk_each_daemon_cpu_ns "$each_cpu_d" --argjson walk_each_walks "$each_walks" \
	'$ARGS.named' >"$LOG/scale.json"

# At 100 taps the two designs cost about the same; from a few hundred the
# first design's N dumps of N links dominate.  Only a large run asserts it.
check_eq "port change: path walks (one per bridge)" "$new_walks" 1
log_test "port change: one path walk for the bridge's $N taps (before: $each_walks)"
if [ "$N" -ge 1000 ]; then
	[ "$new_cpu_d" -le 100000000 ] ||
		check_err 1 "the daemon's CPU for one port change: $((new_cpu_d / 1000000)) ms (> 100 ms)"
	log_test "$N taps: one port change costs the daemon $((new_cpu_d / 1000000)) ms CPU (before: $((each_cpu_d / 1000000)) ms, ${memo_ratio}x)"
fi
if [ "$N" -ge 500 ]; then
	[ "$old_cpu" -gt "$new_cpu" ] || check_err 1 "daemon CPU ${new_cpu} ns not below the first design's ${old_cpu} ns"
	log_test "$N taps: the daemon costs less CPU than every QEMU walking (${ratio}x)"
fi

tests_exit
