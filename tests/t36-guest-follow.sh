#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 12, items 4-6, through the harness: what the guest's stack does
# with run-time changes of the limits, beyond the driver itself.  One VM on
# the tier-1 path, started at 64000/64; the limits change at run time the
# way management changes them (QMP qom-set host_gso_max).
#   flow   (item 6) an established TCP stream when the limit drops from
#          64000/64 to 48000/32: from the tap capture, the stream builds
#          GSO packets of at most the new limit after the drop, not 64 KiB
#          ones that the guest would segment in software (1448-byte frames).
#   admin  (item 4) gso_max_size set by the guest's administrator survives
#          any sequence of device changes: 60000, device 50000 then 65536
#          -> 60000; pinned at the lowered 50000, device 65536 -> 50000.
#          Issue 14 item 5: a packet already built over the lowered limit
#          is split into GSO packets in the guest's own transmit path (the
#          net core split of kernel-split-patches/, stacked in the same
#          kernel), not cut to the MSS: no run of MSS-sized frames across
#          the drop, every frame after it within 48000 bytes / 32 segments,
#          and the guest's split counter (softnet_stat) printed (0 when the
#          route generation bump made the socket follow before any packet
#          needed a split).
#   uppers (item 5) a vlan and a bond on top of virtio-net follow a drop
#          and, which they did not, the rise after it.
#   event  (issue 13 item 4, kernel-event-patches/) an RTM_SETLINK change of a
#          veth's gso_max_size, and then of its gso_max_segs, each sends an
#          RTM_NEWLINK carrying the new value, with the veth up and with it
#          down (ip monitor in the guest); and a request that changes
#          gso_max_size and then fails on a later attribute (a VF's MAC on
#          the veth, which has no VFs: -EOPNOTSUPP) fails and still sends
#          one RTM_NEWLINK carrying the new value (the change stays
#          applied; the patch compares the limits right after the GSO
#          attributes, before any attribute that can fail).
#          Control: the same probe on this machine's own kernel, in a
#          namespace, sees no event (do_setlink marks such a change
#          MODIFIED, never NOTIFY), so the check would fail without the
#          patch; the failed request fails there too.
#   alone  (issue 26 item 9) the flow case again on a guest kernel with
#          kernel-patches/ on kernel-event-patches/ (the host-side event
#          adds an rtnetlink notification, nothing on the transmit path;
#          stacked as in the project kernel, so the build is seeded from it)
#          and without the net core split (nothing rescues a
#          packet already built over the limit), and in the same run a
#          control kernel that lacks the route generation bump (the series
#          plus tests/fixtures/no-route-bump, a stand-in that turns the
#          bump off): with the bump the stream's packets are within the new
#          limit from 0.5 s after the guest took it, and the test prints how
#          long after the drop and how many frames were cut to the MSS in
#          the meantime; the control must show the stream cut to the MSS
#          (most frames at one MSS), or the check proves nothing.
#          GSO_ALONE_KERNEL / GSO_CONTROL_KERNEL: bzImages to use instead
#          of building the two trees.
set -euo pipefail
# shellcheck source=tests/harness/vmtest.sh
. "$(dirname "$0")/harness/vmtest.sh"
# shellcheck source=tests/harness/qmp.sh
. "$GSO_TOP/tests/harness/qmp.sh"
vm_init
require_command tcpdump "guest-follow: tcpdump"

VM=follow
QOM=/machine/peripheral/net0
FLOW_PORT=5301
FLOW_BYTES=$((384 << 20))
STREAM=$GSO_TOP/tools/build/gso-stream

# A packet over the new limit cut to the MSS in software shows as at
# least 32 frames of exactly one MSS of payload in a row; ordinary TCP
# sends at most a few between its GSO packets.  The MSS is each stream's
# own, measured from its handshake (stream_mss), never assumed: with a
# wrong value no frame matches and the run checks would pass whatever
# the guest did.
MSS_RUN_MAX=16

# The probe of kernel-event-patches/' event, as shell (ash in the guest, bash on the
# host): gso_event_probe up|down, with $IP as ip and files under
# $GSOEV_DIR, makes a veth pair gsoev0/gsoev1, puts gsoev0 in the given
# state and listens to link events (ip monitor) while gsoev0's
# gso_max_size and then its gso_max_segs change, each in a request of its
# own, and then a third request sets gso_max_size 30000 and a VF's MAC
# address, which a veth refuses (-EOPNOTSUPP) after the GSO attributes
# took effect.  Alias changes of gsoev1 (up) are markers: the first one
# seen proves the listener is subscribed, each later one that every event
# of the request before it has been delivered (one socket keeps the
# order).  Prints "SIZE_EVENTS SEGS_EVENTS SIZE_CARRIED SEGS_CARRIED
# FAIL_EVENTS FAIL_CARRIED FAIL_REFUSED ALL_MARKERS" (FAIL_*: the third
# request's events, whether one carried gso_max_size 30000, and whether
# ip failed).
event_probe_script() {
	cat <<'PROBE'
gso_event_probe() {
	local st=$1 mon=$GSOEV_DIR/gsoev-mon.$1 i=0 pid refused=0
	$IP link add gsoev0 type veth peer name gsoev1 || return 1
	$IP link set gsoev1 up
	if [ "$st" = up ]; then $IP link set gsoev0 up; else $IP link set gsoev0 down; fi
	$IP -o -d monitor link > "$mon" 2>&1 &
	pid=$!
	while ! grep -q 'alias mark-begin' "$mon" && [ $i -lt 100 ]; do
		$IP link set gsoev1 alias "mark-begin-$i"
		sleep 0.1
		i=$((i + 1))
	done
	$IP link set gsoev0 gso_max_size 40000
	$IP link set gsoev1 alias mark-mid
	$IP link set gsoev0 gso_max_segs 20
	$IP link set gsoev1 alias mark-fail
	$IP link set dev gsoev0 gso_max_size 30000 vf 0 mac 02:00:00:00:00:01 2>/dev/null || refused=1
	$IP link set gsoev1 alias mark-end
	i=0
	while ! grep -q 'alias mark-end' "$mon" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	kill "$pid"
	wait "$pid" 2>/dev/null
	$IP link del gsoev0
	awk -v refused=$refused '
		/^[0-9]+: gsoev1[@:]/ && /alias mark-begin/ && p == 0 { p = 1; next }
		/^[0-9]+: gsoev1[@:]/ && /alias mark-mid/ && p == 1 { p = 2; next }
		/^[0-9]+: gsoev1[@:]/ && /alias mark-fail/ && p == 2 { p = 3; next }
		/^[0-9]+: gsoev1[@:]/ && /alias mark-end/ && p == 3 { p = 4; next }
		/^[0-9]+: gsoev0[@:]/ && p == 1 { a++; if (/gso_max_size 40000 /) as = 1 }
		/^[0-9]+: gsoev0[@:]/ && p == 2 { b++; if (/gso_max_segs 20 /) bs = 1 }
		/^[0-9]+: gsoev0[@:]/ && p == 3 { f++; if (/gso_max_size 30000 /) fs = 1 }
		END { print a + 0, b + 0, as + 0, bs + 0, f + 0, fs + 0, refused, (p == 4) }' "$mon"
}
PROBE
}

# iproute2's ip for the guest (busybox's sets no gso_max_size and creates
# no bond), with its libraries at their paths, as a second initramfs.
guest_ip_initrd() {
	local root ip f
	ip=$(command -v ip) && ldd "$ip" >/dev/null 2>&1 || return 1
	root=$(mktemp -d)
	mkdir -p "$root/opt/gso/bin"
	cp "$ip" "$root/opt/gso/bin/ip"
	while IFS= read -r f; do
		mkdir -p "$root$(dirname "$f")"
		cp -L "$f" "$root$f"
	done < <(prog_libs "$ip")
	write_cpio "$root" "$TEST_LOG_DIR/$VM.ip.cpio.gz"
	rm -rf "$root"
}

# The start of every phase's guest script (the flow phase and the alone
# runs): up, reachable, the helpers below, the limits printed on every
# change, and the 64000/64 the host set at start awaited; then one stream
# of BYTES bytes across the drop, started in the background
# (FLOW-STARTED), waited for ($rc), framed by the split counter.
#   guest_flow_script BYTES
guest_flow_script() {
	cat <<GUEST
. /etc/gso-guest.sh
# gsosplit: packets the guest's net core split into GSO packets for the
# device's limits (/proc/net/softnet_stat column 16, kernel-split-patches,
# summed over the CPUs); nothing if the kernel has no such column
gsosplit() {
	n=0 seen=
	while read -r c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 rest; do
		[ -n "\$c16" ] || continue
		n=\$((n + 0x\$c16)) seen=1
	done < /proc/net/softnet_stat
	[ -z "\$seen" ] || echo "\$n"
}
gcheck link_up net_up $GUEST_IP4 $GUEST_IP6 || exit 1
gcheck ping ping_until $PEER_IP4 || exit 1
# lim DEV: "TSO_MAX_SIZE TSO_MAX_SEGS GSO_MAX_SIZE" of DEV (gso_limits,
# for any device)
lim() {
	gso-linkinfo "\$1" | awk '{ for (i = 1; i < NF; i++) v[\$i] = \$(i + 1)
		print v["tso_max_size"], v["tso_max_segs"], v["gso_max_size"] }'
}
# wait_lim DEV "SIZE SEGS GSO": until DEV has these limits (30 s at most)
wait_lim() {
	local i=0
	while [ "\$(lim \$1)" != "\$2" ] && [ \$i -lt 600 ]; do sleep 0.05; i=\$((i + 1)); done
	[ "\$(lim \$1)" = "\$2" ]
}
# wait_tso DEV SIZE: until DEV's tso_max_size is SIZE (30 s at most)
wait_tso() {
	local i=0
	while [ "\$(lim \$1 | cut -d' ' -f1)" != "\$2" ] && [ \$i -lt 600 ]; do sleep 0.05; i=\$((i + 1)); done
	[ "\$(lim \$1 | cut -d' ' -f1)" = "\$2" ]
}
watch_limits() {
	local last= cur i=0
	while [ \$i -lt 6000 ] && [ ! -f /tmp/stop ]; do
		cur=\$(lim eth0)
		[ "\$cur" != "\$last" ] && echo "GUEST-LIMITS: \$cur" && last=\$cur
		sleep 0.05
		i=\$((i + 1))
	done
}
watch_limits &
wait_lim eth0 "64000 64 64000" || exit 1

# one stream across the drop
echo "GSOSPLIT-BEFORE: \$(gsosplit)"
gso-stream send $PEER_IP4 $FLOW_PORT $1 --timeout 200 > /tmp/flow.out 2>&1 &
flow=\$!
echo FLOW-STARTED
wait \$flow; rc=\$?
echo "GSOSPLIT-AFTER: \$(gsosplit)"
cat /tmp/flow.out
GUEST
}

# The guest: each phase waits for the limits the host set, acts, and says
# so on the console; the host answers each STEP line with a change.
guest_script() {
	event_probe_script
	guest_flow_script $FLOW_BYTES
	cat <<GUEST
IP=/opt/gso/bin/ip
GSOEV_DIR=/tmp
[ \$rc = 0 ] || exit 1
wait_lim eth0 "48000 32 48000" || exit 1

# admin
echo STEP-RISE-64000
wait_lim eth0 "64000 64 64000" || exit 1
\$IP link set dev eth0 gso_max_size 60000 || exit 1
echo "ADMIN-SET: \$(lim eth0)"
echo STEP-DROP-50000
wait_tso eth0 50000 || exit 1
echo "ADMIN-DROP: \$(lim eth0)"
echo STEP-RISE-65536
wait_tso eth0 65536 || exit 1
echo "ADMIN-RISE: \$(lim eth0)"
echo STEP-DROP-50000-PIN
wait_tso eth0 50000 || exit 1
\$IP link set dev eth0 gso_max_size 50000 || exit 1
echo "ADMIN-PIN: \$(lim eth0)"
echo STEP-RISE-65536-PINNED
wait_tso eth0 65536 || exit 1
echo "ADMIN-PINNED-RISE: \$(lim eth0)"
\$IP link set dev eth0 gso_max_size 65536 || exit 1

# uppers: a vlan on eth0, and eth0 enslaved to a bond (not bond0: the
# built-in bonding driver creates that one at boot)
\$IP link add link eth0 name eth0.10 type vlan id 10 || exit 1
\$IP link add bond9 type bond || exit 1
\$IP link set dev eth0 down
\$IP link set dev eth0 master bond9 || exit 1
\$IP link set dev bond9 up || exit 1
\$IP link set dev eth0.10 up || exit 1
echo "UPPERS-START: \$(lim eth0.10) / \$(lim bond9)"
echo STEP-DROP-48000
wait_tso eth0 48000 || exit 1
wait_lim eth0.10 "48000 32 48000"
wait_lim bond9 "48000 32 48000"
echo "UPPERS-DROP: \$(lim eth0.10) / \$(lim bond9)"
echo STEP-RISE-64000-UPPERS
wait_tso eth0 64000 || exit 1
wait_lim eth0.10 "64000 64 64000"
wait_lim bond9 "64000 64 64000"
echo "UPPERS-RISE: \$(lim eth0.10) / \$(lim bond9)"

# event
echo "EVENT-UP: \$(gso_event_probe up)"
echo "EVENT-DOWN: \$(gso_event_probe down)"
touch /tmp/stop
exit 0
GUEST
}

con() { tr -d '\r' < "$TEST_LOG_DIR/$VM.console.log"; }
# console_value KEY: what the guest printed after "KEY: " (last such line)
console_value() { con | sed -n "s/^$1: //p" | tail -n 1; }
# set_limits SIZE SEGS: the device's limits, as management sets them
set_limits() {
	qmp_gso_set "$TEST_LOG_DIR/$VM.qmp.sock" "$QOM" "$1" "$2" >> "$TEST_LOG_DIR/$VM.qmp.log" ||
		check_err 1 "qom-set host_gso_max $1/$2 failed: $(tail -n 2 "$TEST_LOG_DIR/$VM.qmp.log")"
}
# step MARKER SIZE SEGS: when the guest prints MARKER, change the limits
step() {
	vm_console_wait $VM "^$1" 60 || { check_err 1 "the guest never reached $1"; return 1; }
	set_limits "$2" "$3"
}
# big_frames_seen N: the flow's capture holds N frames of over 20000 bytes
# shellcheck disable=SC2317 # called through slowwait
big_frames_seen() {
	[ "$(tcpdump -r "$TEST_LOG_DIR/$VM.tap.pcap" -n 2>/dev/null |
		awk '{ for (i = 1; i < NF; i++) if ($i == "length" && $(i + 1) + 0 > 20000) n++ }
			END { print n + 0 }')" -ge "$1" ]
}
now() { date +%s.%N; }

# The stream's MSS, measured.  The frame capture (capture_start) holds the
# guest's side only; the handshake is captured on its own, both ways:
#   syn_capture_start NAME / syn_capture_stop NAME   (NAME.syn.pcap)
syn_capture_start() {
	ip netns exec "$HOST_NS" tcpdump -i tap0 -n -U -w "$TEST_LOG_DIR/$1.syn.pcap" \
		"tcp port $FLOW_PORT and tcp[tcpflags] & tcp-syn != 0" > "$TEST_LOG_DIR/$1.syn.log" 2>&1 &
	eval "SYN_PID_$1=$!"
	defer "kill $! 2>/dev/null"
	slowwait 10 grep -qs 'listening on' "$TEST_LOG_DIR/$1.syn.log"
}
syn_capture_stop() {
	local var=SYN_PID_$1
	kill -INT "${!var}" 2>/dev/null
	wait "${!var}" 2>/dev/null || true
}
# stream_mss NAME: the payload bytes per segment the guest sends, as its
# TCP computes them: the smaller of the MSS options of the SYN and the
# SYN-ACK, less the 12 bytes of the timestamp option when both carry it.
# Nothing (status 1) without both.
stream_mss() {
	tcpdump -r "$TEST_LOG_DIR/$1.syn.pcap" -n 2>/dev/null | awk '
		function opt() { return match($0, /mss [0-9]+/) ? substr($0, RSTART + 4, RLENGTH - 4) + 0 : 0 }
		/Flags \[S\]/ && !s { s = opt(); sts = /TS val/ }
		/Flags \[S\.\]/ && !sa { sa = opt(); sats = /TS val/ }
		END { if (!s || !sa) exit 1
		      m = s < sa ? s : sa; if (sts && sats) m -= 12; print m }'
}
# mss_check NAME MSS BIG MULT: a measured MSS is the stream's own when it
# divides most of the GSO packets the stream built before the drop (TCP
# builds them of whole segments; BIG: those over 10 MSS, MULT: of them the
# whole multiples of MSS, from the frame capture).
mss_check() {
	if ! [[ $2 =~ ^[0-9]+$ ]] || [ "$2" -lt 536 ]; then
		check_err 1 "$1: no MSS measured from the handshake ('$2', $TEST_LOG_DIR/$1.syn.pcap)"
		return 0
	fi
	if [ "$3" -eq 0 ] || [ $(($4 * 2)) -le "$3" ]; then
		check_err 1 "$1: the measured MSS $2 divides $4 of the stream's $3 GSO packets before the drop: not its MSS"
	fi
}

# --- event control: this machine's kernel, before the guest ---------------
setup_ns EV_NS
mkdir -p "$TEST_LOG_DIR/event-control"
# shellcheck disable=SC2016 # the probe's calls expand in the inner bash
ev_control=$(ip netns exec "$EV_NS" env IP=ip GSOEV_DIR="$TEST_LOG_DIR/event-control" \
	bash -c "$(event_probe_script)"'
	echo "$(gso_event_probe up) / $(gso_event_probe down)"')

topo_tier1 r8169
guest_ip_initrd || { log_test "guest-follow: iproute2 for the guest" FAIL "no iproute2 ip"; tests_exit; }
BULK_PORT=$FLOW_PORT capture_start "$VM.tap" tap0
syn_capture_start "$VM"
ip netns exec "$PEER_NS" "$STREAM" recv -l "$PEER_IP4" --expect $FLOW_BYTES --timeout 280 $FLOW_PORT \
	> "$TEST_LOG_DIR/$VM.recv.log" 2>&1 &
defer "kill $! 2>/dev/null"
guest_script > "$TEST_LOG_DIR/$VM.guest.sh"
mapfile -t nic < <(topo_guest_nic_args "host_gso_max_size=64000,host_gso_max_segs=64")
VM_EXTRA_INITRD=$TEST_LOG_DIR/$VM.ip.cpio.gz \
	vm_start $VM "$HOST_NS" "$TEST_LOG_DIR/$VM.guest.sh" "${nic[@]}"

# --- flow --------------------------------------------------------------------
vm_console_wait $VM '^FLOW-STARTED' 120 || check_err 1 "the guest never started its stream"
slowwait 60 big_frames_seen 50 || check_err 1 "the stream built no large GSO packets before the drop"
t_drop=$(now)
set_limits 48000 32
vm_console_wait $VM '^GUEST-LIMITS: 48000 32 48000' 30 ||
	check_err 1 "the guest did not take 48000/32"
t_seen=$(now)
vm_console_wait $VM '^STEP-RISE-64000' 240 || check_err 1 "the stream did not end"
# A frame the capture dropped is a frame no check below sees (a run of
# MSS-sized frames, a packet over the limit): drops fail the flow.
capture_stop "$VM.tap" || check_err 1 "the tap capture dropped frames: the frame checks cannot hold"
syn_capture_stop "$VM"
MSS=$(stream_mss "$VM") || MSS=
set_limits 64000 64
slowwait 60 grep -q 'status=' "$TEST_LOG_DIR/$VM.recv.log" || true
grep -q 'content=ok .*status=ok' "$TEST_LOG_DIR/$VM.recv.log" ||
	check_err 1 "the stream did not arrive intact: $(cat "$TEST_LOG_DIR/$VM.recv.log")"

# The stream on the tap (what the guest's stack sent, on the wire), with
# the frame length (-e: the first "length") and the TCP payload (the
# last): before the drop, with how many of those over 10 MSS are whole
# multiples of the MSS; from the drop on, the longest run of frames of
# exactly one MSS; and from the moment the host saw the guest take the new
# limits (t_seen, after the guest applied them), the largest frame and
# payload, and, from 0.5 s later, how many frames were at most one MSS.
tcpdump -r "$TEST_LOG_DIR/$VM.tap.pcap" -e -tt -n 2>/dev/null |
	awk -v d="$t_drop" -v s="$t_seen" -v mss="${MSS:-0}" '
		{ flen = -1; len = -1
		  for (i = 1; i < NF; i++) if ($i == "length") { if (flen < 0) flen = $(i + 1) + 0; len = $(i + 1) + 0 } }
		len <= 0 || mss <= 0 { next }
		$1 < d { bn++; if (len > bmax) bmax = len; if (len > 10 * mss) { big++; if (len % mss == 0) mult++ }; next }
		{ if (len == mss) { run++; if (run > runmax) runmax = run } else run = 0 }
		$1 > s { an++; if (len > amax) amax = len; if (flen > fmax) fmax = flen }
		$1 > s + 0.5 { ln++; if (len <= mss) amss++ }
		END { printf "%d %d %d %d %d %d %d %d %d %d\n", bn, bmax, an, amax, fmax, ln, amss, runmax, big, mult }' \
	> "$TEST_LOG_DIR/$VM.flow.txt"
read -r before_n before_max after_n after_max after_fmax late_n after_mss mss_run before_big before_mult \
	< "$TEST_LOG_DIR/$VM.flow.txt"
mss_check "$VM" "$MSS" "$before_big" "$before_mult"
MSS=${MSS:-1}
split_before=$(console_value GSOSPLIT-BEFORE)
split_after=$(console_value GSOSPLIT-AFTER)
echo "    established stream: before the drop $before_n frames, largest payload $before_max;" \
	"after it $after_n frames, largest payload $after_max, largest frame $after_fmax;" \
	"$after_mss of $late_n frames from 0.5 s on at most one MSS; longest run of MSS-sized frames" \
	"from the drop on: $mss_run (MSS $MSS, measured; it divides $before_mult of $before_big GSO packets before the drop);" \
	"guest GSOSplit (softnet_stat column 16) before the stream $split_before, after it $split_after"
[ "$before_max" -gt 48000 ] ||
	check_err 1 "before the drop the largest payload was $before_max: the stream never used 64000"
if [ "$after_n" -eq 0 ] || [ "$late_n" -eq 0 ]; then
	check_err 1 "no frames of the stream after the drop"
fi
# 32 segments of 1448 bytes: at most 46336 bytes of payload per packet;
# the size bound is exclusive: frames shorter than 48000 bytes.
[ "$after_max" -le $((32 * MSS)) ] ||
	check_err 1 "after the drop the stream still built $after_max-byte packets"
[ "$after_fmax" -lt 48000 ] ||
	check_err 1 "after the drop a frame of $after_fmax bytes left the guest (limit 48000, exclusive)"
if [ "$after_max" -le $((10 * MSS)) ] || [ $((after_mss * 2)) -ge "$late_n" ]; then
	check_err 1 "after the drop the stream's packets were segmented to one MSS ($after_mss of $late_n frames, largest $after_max): the socket kept the old limits"
fi
log_test "flow: an established stream follows a drop to 48000/32 (GSO packets <= $after_max bytes)"
# A packet over the new limit that the guest cut to the MSS in software
# would show as 32 or more MSS-sized frames in a row; split by the net
# core (or never built) it shows none.
[ "$mss_run" -lt "$MSS_RUN_MAX" ] ||
	check_err 1 "$mss_run MSS-sized frames in a row after the drop: the guest segmented a packet in software"
[[ $split_before =~ ^[0-9]+$ && $split_after =~ ^[0-9]+$ ]] ||
	check_err 1 "the guest has no split counter in softnet_stat (kernel-split-patches not in its kernel?): '$split_before' '$split_after'"
split_delta='?'
[ "$RET" -ne 0 ] || split_delta=$((split_after - split_before))
log_test "flow: nothing over the new limit cut to the MSS in the guest (GSOSplit +$split_delta)"

# --- admin -------------------------------------------------------------------
step STEP-DROP-50000 50000 64 || true
step STEP-RISE-65536 65536 65535 || true
step STEP-DROP-50000-PIN 50000 64 || true
step STEP-RISE-65536-PINNED 65536 65535 || true
vm_console_wait $VM '^ADMIN-PINNED-RISE' 60 || check_err 1 "the guest did not see the rise after the pin"
check_eq "after the admin set 60000 at 64000/64" "$(console_value ADMIN-SET)" "64000 64 60000"
check_eq "device drops to 50000" "$(console_value ADMIN-DROP)" "50000 64 50000"
check_eq "device rises to 65536: the admin's 60000 again" "$(console_value ADMIN-RISE)" "65536 65535 60000"
log_test "admin: gso_max_size 60000, device 50000 then 65536 -> 60000"
check_eq "admin pins 50000 at a 50000 limit" "$(console_value ADMIN-PIN)" "50000 64 50000"
check_eq "device rises to 65536: the pin holds" "$(console_value ADMIN-PINNED-RISE)" "65536 65535 50000"
log_test "admin: gso_max_size pinned at the lowered limit stays when the device rises"

# --- uppers ------------------------------------------------------------------
step STEP-DROP-48000 48000 32 || true
step STEP-RISE-64000-UPPERS 64000 64 || true
rc=0
vm_wait $VM || rc=$?
check_eq "guest exit code" "$rc" 0
check_eq "vlan and bond before" "$(console_value UPPERS-START)" "65536 65535 65536 / 65536 65535 65536"
check_eq "vlan and bond after the drop" "$(console_value UPPERS-DROP)" "48000 32 48000 / 48000 32 48000"
check_eq "vlan and bond after the rise" "$(console_value UPPERS-RISE)" "64000 64 64000 / 64000 64 64000"
log_test "uppers: a vlan and a bond on virtio-net follow a drop and the rise after it"

# --- event -------------------------------------------------------------------
# Each probe: "SIZE_EVENTS SEGS_EVENTS SIZE_CARRIED SEGS_CARRIED
# FAIL_EVENTS FAIL_CARRIED FAIL_REFUSED ALL_MARKERS"; the first four and
# the markers are the two requests that succeed, the three FAIL_ fields
# (and the markers) the one that fails after changing gso_max_size.
# ev_fields PROBE: the fields of the two requests that succeed;
# ev_fail_fields PROBE: those of the failed one.
ev_fields() { echo "$1" | awk '{ print $1, $2, $3, $4, $8 }'; }
ev_fail_fields() { echo "$1" | awk '{ print $5, $6, $7, $8 }'; }
ev_up=$(console_value EVENT-UP)
ev_down=$(console_value EVENT-DOWN)
echo "    probes (SIZE SEGS SIZE_CARRIED SEGS_CARRIED FAIL FAIL_CARRIED FAIL_REFUSED MARKERS):" \
	"this machine's kernel $ev_control; guest, up: $ev_up, down: $ev_down"
check_eq "this machine's kernel ($(uname -r)), veth up" "$(ev_fields "${ev_control% / *}")" "0 0 0 0 1"
check_eq "this machine's kernel ($(uname -r)), veth down" "$(ev_fields "${ev_control#* / }")" "0 0 0 0 1"
check_eq "this machine's kernel, the failed request, up" "$(ev_fail_fields "${ev_control% / *}")" "0 0 1 1"
check_eq "this machine's kernel, the failed request, down" "$(ev_fail_fields "${ev_control#* / }")" "0 0 1 1"
log_test "event control: this machine's kernel sends no RTM_NEWLINK for a gso_max_* change"
check_eq "veth up: one RTM_NEWLINK per request, carrying the new value" "$(ev_fields "$ev_up")" "1 1 1 1 1"
check_eq "veth down: the same" "$(ev_fields "$ev_down")" "1 1 1 1 1"
log_test "event: gso_max_size/gso_max_segs changes send RTM_NEWLINK, device up and down"
check_eq "veth up: the request fails, one RTM_NEWLINK carries gso_max_size 30000" \
	"$(ev_fail_fields "$ev_up")" "1 1 1 1"
check_eq "veth down: the same" "$(ev_fail_fields "$ev_down")" "1 1 1 1"
log_test "event: a request that fails after changing gso_max_size still sends RTM_NEWLINK"

# --- alone: the flow without the split series, with a control --------------
ALONE_BYTES=$((256 << 20))
alone_guest_script() {
	guest_flow_script $ALONE_BYTES
	cat <<GUEST
touch /tmp/stop
exit \$rc
GUEST
}

# alone_run NAME KERNEL: one guest on KERNEL, one stream across a drop from
# 64000/64 to 48000/32; writes to $TEST_LOG_DIR/NAME.alone.txt "LATE_N LATE_MSS AFTER_MAX AFTER_FMAX
# CUT_FRAMES CUT_UNTIL MSS SPLIT" (CUT_*: frames in runs of MSS_RUN_MAX or
# more MSS-sized frames from the drop on, and the time of the last one
# after the drop, in ms; MSS: the stream's, measured and checked; SPLIT:
# the guest's split count, softnet_stat, "none" without it)
alone_run() {
	local name=$1 kernel=$2 t_drop t_seen rc=0 mss big mult
	VM=$name
	BULK_PORT=$FLOW_PORT capture_start "$VM.tap" tap0
	syn_capture_start "$VM"
	ip netns exec "$PEER_NS" "$STREAM" recv -l "$PEER_IP4" --expect $ALONE_BYTES --timeout 280 \
		$FLOW_PORT > "$TEST_LOG_DIR/$VM.recv.log" 2>&1 &
	defer "kill $! 2>/dev/null"
	alone_guest_script > "$TEST_LOG_DIR/$VM.guest.sh"
	VM_KERNEL=$kernel vm_start "$VM" "$HOST_NS" "$TEST_LOG_DIR/$VM.guest.sh" "${nic[@]}"
	vm_console_wait "$VM" '^FLOW-STARTED' 120 || check_err 1 "$VM: the guest never started its stream"
	slowwait 60 big_frames_seen 50 || check_err 1 "$VM: no large GSO packets before the drop"
	t_drop=$(now)
	set_limits 48000 32
	vm_console_wait "$VM" '^GUEST-LIMITS: 48000 32 48000' 30 ||
		check_err 1 "$VM: the guest did not take 48000/32"
	t_seen=$(now)
	vm_wait "$VM" || rc=$?
	capture_stop "$VM.tap" || check_err 1 "$VM: the tap capture dropped frames: the frame checks cannot hold"
	syn_capture_stop "$VM"
	check_eq "$VM: guest exit code (stream sent)" "$rc" 0
	mss=$(stream_mss "$VM") || mss=
	read -r big mult < <(tcpdump -r "$TEST_LOG_DIR/$VM.tap.pcap" -tt -n 2>/dev/null |
		awk -v d="$t_drop" -v mss="${mss:-0}" '$1 < d && mss > 0 && $NF > 10 * mss { big++; if ($NF % mss == 0) mult++ }
			END { print big + 0, mult + 0 }')
	mss_check "$VM" "$mss" "$big" "$mult"
	mss=${mss:-1}
	tcpdump -r "$TEST_LOG_DIR/$VM.tap.pcap" -e -tt -n 2>/dev/null |
		awk -v d="$t_drop" -v s="$t_seen" -v mss="$mss" -v rmax=$MSS_RUN_MAX '
			{ flen = -1; len = -1
			  for (i = 1; i < NF; i++) if ($i == "length") { if (flen < 0) flen = $(i + 1) + 0; len = $(i + 1) + 0 } }
			len <= 0 || $1 < d { next }
			{ if (len == mss) { run++; if (run == rmax) { cut += rmax; until = $1 } else if (run > rmax) { cut++; until = $1 } } else run = 0 }
			$1 > s + 0.5 { ln++; if (len <= mss) lmss++; if (len > amax) amax = len; if (flen > fmax) fmax = flen }
			END { printf "%d %d %d %d %d %d %d", ln, lmss, amax, fmax, cut, until ? (until - d) * 1000 : 0, mss }' \
		> "$TEST_LOG_DIR/$VM.alone.txt"
	echo " $(console_value GSOSPLIT-BEFORE | grep -E '^[0-9]+$' || echo none)" >> "$TEST_LOG_DIR/$VM.alone.txt"
}

# The two kernels: kernel-patches/ without the split series (on
# kernel-event-patches/, as linux-stack stacks them), and the same with the route
# generation bump turned off.  Both configured as the project kernel, each
# seeded from a built sibling (series_kernel, scripts/lib.sh; also built
# ahead by scripts/prebuild.sh with the same series).
k_alone=${GSO_ALONE_KERNEL:-$(series_kernel "$GSO_TOP/kernel-event-patches" \
	"$GSO_TOP/kernel-patches")} ||
	check_err 1 "the kernel with kernel-patches/ and no split series does not build"
k_control=${GSO_CONTROL_KERNEL:-$(series_kernel "$GSO_TOP/kernel-event-patches" \
	"$GSO_TOP/kernel-patches" \
	"$GSO_TOP/tests/fixtures/no-route-bump")} ||
	check_err 1 "the control kernel (no route generation bump) does not build"
if [ "$RET" -ne 0 ]; then
	log_test "alone: the two guest kernels build"
	tests_exit
fi
# Each run's own checks (alone_run's) count for its own line: the alone
# run, its line, then the control, its line.
alone_run alone "$k_alone"
read -r a_n a_mss a_max a_fmax a_cut a_until a_seg a_split < "$TEST_LOG_DIR/alone.alone.txt"
echo "    kernel-patches/ without the split: $a_mss of $a_n frames from 0.5 s after the guest took 48000/32 at" \
	"one MSS ($a_seg, measured) or less, largest payload $a_max, largest frame $a_fmax; $a_cut frames" \
	"cut to the MSS (runs of $MSS_RUN_MAX or more) until $a_until ms after the drop; GSOSplit: $a_split"
check_eq "the guest kernel has no net core split (no split count in softnet_stat)" "$a_split" none
[ "$a_n" -gt 0 ] || check_err 1 "no frames of the stream after the drop"
[ "$a_max" -le $((32 * a_seg)) ] ||
	check_err 1 "after the drop the stream still built $a_max-byte packets"
[ "$a_fmax" -lt 48000 ] || check_err 1 "after the drop a frame of $a_fmax bytes left the guest"
if [ "$a_max" -le $((10 * a_seg)) ] || [ $((a_mss * 2)) -ge "$a_n" ]; then
	check_err 1 "the stream was cut to the MSS after the drop ($a_mss of $a_n frames): it kept the old limits"
fi
log_test "alone: without the split series, an established stream follows a drop ($a_cut frames cut to the MSS, until $a_until ms)"
alone_run control "$k_control"
read -r c_n c_mss c_max _ c_cut c_until c_seg _ < "$TEST_LOG_DIR/control.alone.txt"
echo "    control (no route generation bump): $c_mss of $c_n frames at one MSS ($c_seg) or less, largest" \
	"payload $c_max; $c_cut frames cut to the MSS until $c_until ms after the drop"
# The control must fail the check above, for the reason it is about.
[ "$c_n" -gt 0 ] || check_err 1 "control: no frames of the stream after the drop"
if ! [ "$c_max" -le $((10 * c_seg)) ] && ! [ $((c_mss * 2)) -ge "$c_n" ]; then
	check_err 1 "control: without the route generation bump the stream followed too ($c_mss of $c_n frames at one MSS, largest $c_max): the check does not discriminate"
fi
log_test "alone control: without the route generation bump the stream is cut to the MSS ($c_mss of $c_n frames)"
tests_exit

