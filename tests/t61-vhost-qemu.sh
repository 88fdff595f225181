#!/usr/bin/env bash
# Tier 2, vhost=on as a user runs it: a kernel boots as a host VM, and
# inside it the host daemon gso-limitsd runs (no options but --control
# none) and the patched QEMU runs a nested guest (the same bzImage) with
#   -netdev tap,...,vhost=on -device virtio-net-pci,...,host_gso_max_segs=65535
#   -qmp unix:...  (the feature offered, no limit until the daemon sets one)
# on a tap in a bridge whose other ports have r8169's limits (64000 bytes /
# 64 segments): a veth (vnic0) to a receiver in a peer namespace, and in
# the vhost case a netdevsim port set through its debugfs knobs.  The
# daemon finds the QEMU holding the tap and its QMP socket, and sets the
# path's limits with qom-set host_gso_max.  In both cases, at 64000/64,
# the guest sends an 8 MiB stream through vhost-net, captured on the tap
# and on vnic0: intact, every byte on both, GSO packets on the tap, 0 bytes
# segmented in software (gso-hist).
#   vhost     the patched kernel; the nested QEMU runs in a network
#             namespace of its own and its tap is moved out of it into the
#             host VM's bridge, as when a management layer passes QEMU a
#             tap from another namespace: the daemon, in the bridge's
#             namespace, still finds the tap's QEMU.  The nested guest
#             comes to tso_max 64000/64; the nested QEMU really uses
#             /dev/vhost-net (an open fd and a vhost worker thread); the
#             netdevsim port drops to 32000/32 (the kernel announces the
#             change) and the guest follows within NESTED_FOLLOW_S (delay
#             recorded); QEMU's trace (-trace virtio_net_gso_limits) and the
#             daemon's log show both values set and notified.  Then (issue
#             15 items 2 and 6) the host enforces a segment limit after the
#             run-time drop: with both bridge ports at 32000/32 and 524-byte
#             segments (the receivers advertise a 536-byte MSS), 4 MiB leave
#             the guest within 32 segments and the egress veth as they came
#             (0 bytes segmented); the control, a second NIC of the same
#             guest with the feature off behind a 65536/32 port, has its
#             frames over 32 segments cut on the host.  The same two
#             streams again over IPv6 (issue 15 item 6: 86 bytes of headers
#             instead of 66, the same 524-byte segments), each checked as
#             the IPv4 one.  Last, the guest
#             migrates with vhost=on to a second nested QEMU while a stream
#             is held mid-way (receiver stopped until the destination says
#             "completed"): it keeps 32000/32, the stream ends intact.
#   fallback  the same in a host VM booted from the UNPATCHED kernel
#             (netdevsim without the knobs: vnic0 alone; no announcement of
#             a bare gso_max_* change, so the change also sets the alias, as
#             tier 1 does): the guest gets 64000/64 and follows the veth's
#             change to 32000/32.
# The two host VMs run at the same time.  Everything network lives inside
# the host VMs; the host side only makes one namespace per VM.
#
# Environment: T61_CASES (default "vhost fallback"), GSO_KERNEL_UNPATCHED
# (the fallback host's bzImage; default scripts/build-kernel.sh --unpatched).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/vm.sh
. "$GSO_TOP/tests/harness/vm.sh"

# Bounds, seconds.  Nested TCG inside TCG: the nested guest reaches init in
# ~75-120 s when it has a core to itself.
#
# Inner bounds fit inside the outer ones by construction, not by adding up
# every wait:
#   - the harness kills a host VM HOSTVM_TIMEOUT s after starting its QEMU
#     (GSO_VM_TIMEOUT, timeout --kill-after=5);
#   - DEADLINE_S s after starting it, this script writes "stop" to the host
#     VM's virtio-serial port gso.ctl (on this machine's clock: the host
#     VM's own runs slow under a loaded TCG host, it has no PIT, HPET or
#     RTC reference, and lost ~40 % in one run); on "stop" the host VM
#     kills the nested QEMUs, receivers and captures it started (by PID),
#     and every wait inside (waitc) ends at once.  Each wait is also capped
#     by the host VM's own clock at DEADLINE_S, and so are the nested
#     QEMUs' timeouts and the receivers' (gso-stream --timeout);
#   - after "stop" the script only reports what it has (single QMP reads
#     are bounded at 10 s), copies its logs to the console and exits: well
#     under DUMP_MARGIN_S.
#   HOSTVM_TIMEOUT (900) = DEADLINE_S (840) + DUMP_MARGIN_S (60).
# The per-phase bounds below (all capped at DEADLINE_S) are what one phase
# may take before the host VM gives up on it; a normal run takes ~3-4 min
# on an otherwise idle machine, the bounds are for a loaded one (nested
# boots of 5-9 min were seen with a load of 11 on the 2 cores).
NESTED_BOOT_S=${NESTED_BOOT_S:-600}    # nested QEMU start -> first limits line
NESTED_FOLLOW_S=${NESTED_FOLLOW_S:-60} # port change -> guest reports it
HOSTVM_TIMEOUT=${HOSTVM_TIMEOUT:-900}  # whole host VM (GSO_VM_TIMEOUT)
DUMP_MARGIN_S=60
DEADLINE_S=$((HOSTVM_TIMEOUT - DUMP_MARGIN_S))
CASES=${T61_CASES:-vhost fallback}
# The streams: at 64000/64; after the drop to 32000/32 (main NIC and the
# feature-off control NIC); across the migration (held, see below).
STREAM1=$((8 << 20)) STREAM2=$((4 << 20)) STREAM4=$((2 << 20))
# The IPv6 streams after the drop: half of STREAM2 (still ~125 frames of
# 32 segments), as they add to a run that comes near its bound under load.
STREAM6=$((2 << 20))

vm_init
hostvm_cpio=$("$GSO_TOP/scripts/build-hostvm-initramfs.sh" --qemu "$GSO_QEMU" --kernel "$GSO_KERNEL") || {
	log_test "vhost qemu: host VM initramfs with QEMU" FAIL "scripts/build-hostvm-initramfs.sh failed"
	exit $ksft_fail
}
log_test "vhost qemu: host VM initramfs with QEMU ($(du -h "$hostvm_cpio" | cut -f1))"

# hostvm_script MODE: the host VM's /test.sh (busybox sh).  MODE nsim:
# netdevsim port, run-time change, the control NIC, the migration; MODE
# veth: veth port, no knobs.
# Every line the outer test reads starts with "NVQ:"; the nested console
# and QEMU's stderr are copied as "NVQ-CON:" and "NVQ-QEMU:".
hostvm_script() {
	printf 'MODE=%s\nBOOT_S=%s\nFOLLOW_S=%s\nDEADLINE_S=%s\n' \
		"$1" "$NESTED_BOOT_S" "$NESTED_FOLLOW_S" "$DEADLINE_S"
	printf 'STREAM1=%s\nSTREAM2=%s\nSTREAM4=%s\nSTREAM6=%s\n' "$STREAM1" "$STREAM2" "$STREAM4" "$STREAM6"
	cat <<'HOSTVM'
# ms
. /etc/gso-guest.sh
IP=/opt/gso/bin/ip
QEMU=/usr/local/bin/qemu-system-x86_64
N=/tmp/nested
say() { echo "NVQ: $*"; }
STOP=$N/stop
# left: whole seconds to DEADLINE_S on this VM's clock (0 once the outer
# test said stop); upto S: S, capped at what is left.
left() {
	[ -e $STOP ] && { echo 0; return; }
	l=$(( DEADLINE_S - $(ms) / 1000 )); [ "$l" -gt 0 ] && echo "$l" || echo 0
}
upto() { l=$(left); [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }
# waitc SECONDS CMD...: retry CMD every 0.25 s for at most SECONDS (upto),
# and not after the outer test's stop (gso-guest.sh's wait_for plus the
# stop).
waitc() {
	wend=$(( $(ms) + $(upto "$1") * 1000 ))
	shift
	while ! "$@"; do
		[ ! -e $STOP ] && [ "$(ms)" -lt "$wend" ] || return 1
		sleep 0.25
	done
}
# track PID: a process this script started, killed on the outer test's stop.
track() { echo "$1" >> $N/pids; }
dump() {
	for c in console dst-console; do
		sed "s/^/NVQ-CON: /" $N/$c.log 2>/dev/null | tr -d '\r' | tail -n 60
	done
	sed 's/^/NVQ-QEMU: /' $N/qemu.err $N/dst-qemu.err 2>/dev/null | tail -n 40
	sed 's/^/NVQ-LD: /' $N/limitsd.log 2>/dev/null | tail -n 40
}
fail() { say "error: $*"; dump; exit 1; }
qemu_alive() { [ -n "$QPID" ] && kill -0 "$QPID" 2>/dev/null; }
seen() { grep -q "$1" $N/console.log 2>/dev/null; }
seen_or_dead() { seen "$1" || ! qemu_alive; }
dst_alive() { [ -n "$DPID" ] && kill -0 "$DPID" 2>/dev/null; }
dst_seen() { grep -q "$1" $N/dst-console.log 2>/dev/null; }
dst_seen_or_dead() { dst_seen "$1" || ! dst_alive; }
gone() { ! kill -0 "$1" 2>/dev/null; }

# A QMP client over a pipe chardev (busybox has no unix-socket client):
# qmp OUT-FD IN-FD JSON sends JSON with an id and waits (10 s) for the reply
# carrying that id (events in between skipped); prints it.
QID=0
qmp() {
	QID=$((QID + 1))
	printf '%s\n' "${3%\}},\"id\":$QID}" >&"$1"
	while read -t 10 -r line <&"$2"; do
		case "$line" in *"\"id\": $QID}"*) echo "$line"; return 0 ;; esac
	done
	return 1
}

mkdir -p $N/root
: > $N/pids
ctl=
for p in /sys/class/virtio-ports/*; do
	[ "$(cat "$p/name" 2>/dev/null)" = gso.ctl ] && ctl=/dev/${p##*/}
done
[ -n "$ctl" ] || fail "no virtio-serial port gso.ctl"
# The outer test's deadline: on "stop", end everything this script started.
(
	read -r line < "$ctl"
	: > $STOP
	say "stop from the outer test ($line): killing the nested QEMUs, receivers and captures"
	for p in $(cat $N/pids $N/src.pid $N/dst.pid 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
) &
say "host $(uname -r), $(nproc) cpus, mode $MODE, deadline ${DEADLINE_S} s"
say "host-up-ms $(ms)"
[ -c /dev/vhost-net ] || fail "no /dev/vhost-net"
[ -c /dev/net/tun ] || fail "no /dev/net/tun"

# --- topology: br0 = { egress port at 64000/64, tapv } -------------------
# vnic0, a veth at r8169's 64000/64 like tier 1's nic0, carries the nested
# guest's stream to vnic1 (192.0.2.2) in a peer namespace: were the
# address in this one, the bridge would answer the guest's ARP itself and
# deliver the stream locally, never through vnic0.  MODE nsim adds the
# netdevsim port, whose limits change at run time, and the control path:
# brc = { tapc (the nested guest's second NIC, the feature off), cnic0 (a
# veth at 65536 bytes / 32 segments) } -> cnic1 (198.51.100.2).
$IP link add br0 type bridge || fail "bridge"
$IP link set br0 up
$IP link add vnic0 type veth peer name vnic1 || fail "veth"
$IP link set vnic0 gso_max_size 64000 gso_max_segs 64 || fail "veth gso_max_*"
unshare -n sleep 900 &
PEER=$!
track $PEER
waitc 5 sh -c "[ \"\$(readlink /proc/$PEER/ns/net)\" != \"\$(readlink /proc/self/ns/net)\" ]" ||
	fail "the peer namespace"
$IP link set vnic1 netns "$PEER" || fail "moving vnic1 to the peer namespace"
nsenter -t "$PEER" -n $IP addr add 192.0.2.2/24 dev vnic1 || fail "vnic1's address"
nsenter -t "$PEER" -n $IP link set vnic1 up || fail "vnic1 up"
$IP link set vnic0 master br0 up || fail "enslaving vnic0"
port=vnic0
if [ "$MODE" = nsim ]; then
	echo "61 1" > /sys/bus/netdevsim/new_device || fail "netdevsim new_device"
	waitc 5 sh -c 'ls /sys/bus/netdevsim/devices/netdevsim61/net/ 2>/dev/null | grep -q .' ||
		fail "the netdevsim port did not appear"
	port=$(ls /sys/bus/netdevsim/devices/netdevsim61/net/ | head -n 1)
	knobs=/sys/kernel/debug/netdevsim/netdevsim61/ports/0
	[ -e $knobs/tso_max_size ] || fail "no netdevsim knob $knobs/tso_max_size"
	echo 64000 > $knobs/tso_max_size && echo 64 > $knobs/tso_max_segs ||
		fail "setting the netdevsim knobs"
	$IP link set "$port" master br0 up || fail "enslaving $port"
	$IP link add brc type bridge || fail "bridge brc"
	$IP link set brc up
	$IP link add cnic0 type veth peer name cnic1 || fail "veth cnic"
	$IP link set cnic0 gso_max_size 65536 gso_max_segs 32 master brc up || fail "cnic0"
	$IP link set cnic1 netns "$PEER" || fail "moving cnic1"
	nsenter -t "$PEER" -n $IP addr add 198.51.100.2/24 dev cnic1 || fail "cnic1's address"
	nsenter -t "$PEER" -n $IP link set cnic1 up || fail "cnic1 up"
	# Small segments on the control path, as on the main path after the
	# drop (below): 536-byte MSS, so 32 segments are ~16.8 KB and the
	# segment limit, not the size limit, is what binds.
	nsenter -t "$PEER" -n $IP route replace 198.51.100.0/24 dev cnic1 proto kernel scope link \
		src 198.51.100.2 advmss 536 || fail "cnic1's route"
	# IPv6 on both paths for the IPv6 streams after the drop (the first
	# stream is IPv4): the same 536-byte MSS, through a host route to the
	# guest's address (the prefix route belongs to the kernel).
	nsenter -t "$PEER" -n $IP addr add 2001:db8::2/64 dev vnic1 nodad || fail "vnic1's IPv6 address"
	nsenter -t "$PEER" -n $IP addr add 2001:db8:1::2/64 dev cnic1 nodad || fail "cnic1's IPv6 address"
	nsenter -t "$PEER" -n $IP -6 route add 2001:db8::1/128 dev vnic1 advmss 536 ||
		fail "vnic1's IPv6 route"
	nsenter -t "$PEER" -n $IP -6 route add 2001:db8:1::1/128 dev cnic1 advmss 536 ||
		fail "cnic1's IPv6 route"
fi
if [ "$MODE" != nsim ]; then
	$IP tuntap add dev tapv mode tap vnet_hdr || fail "tuntap"
	$IP link set tapv master br0 up || fail "enslaving tapv"
fi
say "port $port: $($IP -d link show dev "$port" | grep -o 'tso_max_size [0-9]* tso_max_segs [0-9]*\|gso_max_size [0-9]* gso_max_segs [0-9]*' | tr '\n' ' ')"

# The host daemon, as a user runs it: it watches this namespace and finds
# the taps' QEMUs by itself.
command -v gso-limitsd >/dev/null || fail "no gso-limitsd in the host VM"
gso-limitsd --control none --verbose > $N/limitsd.log 2>&1 &
LDPID=$!

# --- the nested guest: report the limits on every change ------------------
{
	printf 'MODE=%s\nSTREAM1=%s\nSTREAM2=%s\nSTREAM4=%s\nSTREAM6=%s\n' "$MODE" "$STREAM1" "$STREAM2" "$STREAM4" "$STREAM6"
	cat <<'NESTED'
. /etc/gso-guest.sh
i=0
while [ ! -e /sys/class/net/eth0 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
net_up 192.0.2.1 2001:db8::1 || echo "NESTED-ERROR: net_up"
if [ "$MODE" = nsim ]; then
	echo 0 > /proc/sys/net/ipv6/conf/eth1/accept_dad
	ip addr add 198.51.100.1/24 dev eth1 && ip -6 addr add 2001:db8:1::1/64 dev eth1 &&
		ip link set dev eth1 up || echo "NESTED-ERROR: eth1"
	echo "NESTED-CTRL-LIMITS: $(GUEST_IF=eth1; gso_limits)"
fi
last= i=0 streamed=
# Up to 200 s: report every change; at 64000/64 send the stream once
# (content-checked by the receiver); go on at 32000/32.
while [ $i -lt 800 ]; do
	cur=$(gso_limits)
	if [ "$cur" != "$last" ]; then
		echo "NESTED-LIMITS: $cur"
		last=$cur
	fi
	case "$cur" in
	"32000 32 "*) break ;;
	"64000 64 "*)
		if [ -z "$streamed" ]; then
			streamed=1
			gso-stream send 192.0.2.2 5201 $STREAM1 --timeout 120 > /tmp/send.log 2>&1
			echo "NESTED-STREAM: rc=$? $(tail -n 1 /tmp/send.log)"
		fi ;;
	esac
	sleep 0.25
	i=$((i + 1))
done
case "$cur" in "32000 32 "*) ;; *) exit 1 ;; esac
if [ "$MODE" = nsim ]; then
	# After the drop: the main NIC within 32000/32, then the control NIC.
	gso-stream send 192.0.2.2 5202 $STREAM2 --timeout 60 > /tmp/s2.log 2>&1
	echo "NESTED-STREAM2: rc=$? $(tail -n 1 /tmp/s2.log)"
	gso-stream send 198.51.100.2 5203 $STREAM2 --timeout 60 > /tmp/s3.log 2>&1
	echo "NESTED-STREAM3: rc=$? $(tail -n 1 /tmp/s3.log)"
	# The same two over IPv6.
	gso-stream send -6 2001:db8::2 5205 $STREAM6 --timeout 60 > /tmp/s5.log 2>&1
	echo "NESTED-STREAM5: rc=$? $(tail -n 1 /tmp/s5.log)"
	gso-stream send -6 2001:db8:1::2 5206 $STREAM6 --timeout 60 > /tmp/s6.log 2>&1
	echo "NESTED-STREAM6: rc=$? $(tail -n 1 /tmp/s6.log)"
	# Held by the host VM until the migration has completed.
	gso-stream send 192.0.2.2 5204 $STREAM4 --timeout 200 > /tmp/s4.log 2>&1
	echo "NESTED-STREAM4: rc=$? $(tail -n 1 /tmp/s4.log)"
	echo "NESTED-LIMITS-END: $(gso_limits)"
fi
dmesg | grep -i -E 'virtio_net|gso' | sed 's/^/NESTED-DMESG: /'
exit 0
NESTED
} > $N/root/test.sh
chmod 755 $N/root/test.sh
cp /opt/gso/guest.cpio $N/initrd
(cd $N/root && echo test.sh | cpio -o -H newc -R 0:0 2>/dev/null | gzip) >> $N/initrd ||
	fail "nested initrd"

# nested_qemu NAME TAP CTRL-TAP ARGS...: the nested QEMU's command line
# (files $N/NAME*); MODE nsim adds the control NIC (the feature off).
nested_qemu() {
	pfx=$1 tap=$2 ctap=$3 files=
	shift 3
	# The source's console and exit code files: console.log, ret.
	[ "$pfx" = src ] || files=$pfx-
	ctrl=
	[ "$MODE" = nsim ] &&
		ctrl="-netdev tap,id=n1,ifname=$ctap,script=no,downscript=no,vhost=on -device virtio-net-pci,id=net1,netdev=n1,romfile="
	mkfifo $N/$pfx-mq.in $N/$pfx-mq.out
	# shellcheck disable=SC2086 # $ctrl is several words
	echo $QEMU -M pc -accel tcg -m 128 -smp 1 -nodefaults -no-user-config \
		-vga none -display none -no-reboot -L /usr/share/qemu -bios qboot.rom \
		-kernel /opt/gso/bzImage -initrd $N/initrd \
		-append "'console=ttyS0 panic=-1 oops=panic loglevel=4 kunit.enable=0'" \
		-chardev file,id=con,path=$N/${files}console.log -serial chardev:con \
		-device virtio-serial-pci,id=vser0 \
		-chardev file,id=ret,path=$N/${files}ret \
		-device virtserialport,bus=vser0.0,chardev=ret,name=gso.ret \
		-netdev tap,id=n0,ifname=$tap,script=no,downscript=no,vhost=on \
		-device virtio-net-pci,id=net0,netdev=n0,host_gso_max_segs=65535,romfile= $ctrl \
		-qmp unix:$N/$pfx-qmp.sock,server=on,wait=off \
		-chardev pipe,id=mq,path=$N/$pfx-mq -mon chardev=mq,mode=control \
		-trace virtio_net_gso_limits -pidfile $N/$pfx.pid "$@"
}

# MODE nsim: QEMU in a network namespace of its own (unshare -n) creates
# tapv (and tapc) there; they are moved to the bridges below, out of
# QEMU's sight.
NETNS=
[ "$MODE" = nsim ] && NETNS="unshare -n"
t0=$(ms)
QPID=
eval "timeout -s KILL $(left) $NETNS $(nested_qemu src tapv tapc)" > $N/qemu.out 2> $N/qemu.err &
QPID=$!
track $QPID
waitc 10 test -s $N/src.pid || fail "nested QEMU did not start"
QEMU_PID=$(cat $N/src.pid)
say "nested qemu started, pid $QEMU_PID"
exec 7> $N/src-mq.in 8< $N/src-mq.out
qmp 7 8 '{"execute":"qmp_capabilities"}' > /dev/null || fail "no QMP on the source's pipe"
if [ "$MODE" = nsim ]; then
	# Long before the guest's driver probes (the nested boot takes
	# minutes): move the taps into this namespace's bridges.
	for t in tapv:br0 tapc:brc; do
		waitc 10 nsenter -t "$QEMU_PID" -n $IP link show dev ${t%:*} >/dev/null 2>&1 ||
			fail "${t%:*} did not appear in QEMU's namespace"
		nsenter -t "$QEMU_PID" -n $IP link set dev ${t%:*} netns 1 || fail "moving ${t%:*}"
		$IP link set ${t%:*} master ${t#*:} up || fail "enslaving ${t%:*}"
	done
	nsenter -t "$QEMU_PID" -n $IP link show dev tapv >/dev/null 2>&1 &&
		fail "tapv still visible in QEMU's namespace"
	say "tapv moved out of QEMU's namespace into br0"
fi

# The receivers (each ends at DEADLINE_S at the latest) and the captures on
# the taps and the egress veths, as tier 1 takes them (harness/bulk.sh).
# recv PORT ADDR BYTES (ADDR IPv4 or IPv6)
recv() {
	case "$2" in *:*) fam=-6 ;; *) fam= ;; esac
	# shellcheck disable=SC2086 # $fam is empty or one word
	nsenter -t "$PEER" -n gso-stream recv $fam -l "$2" --expect "$3" --timeout "$(left)" "$1" \
		> $N/recv-$1.log 2>&1 &
	eval "RPID_$1=\$!"
	track $!
	waitc 10 grep -q 'listening=' $N/recv-$1.log || fail "receiver $1 did not listen"
}
# recv_end PORT [S]: wait (up to S, default 30 s) for the receiver, print
# its result line.
recv_end() {
	eval "rp=\$RPID_$1"
	waitc "${2:-30}" gone "$rp" || kill "$rp" 2>/dev/null
	grep 'role=recv .*status=' $N/recv-$1.log | tail -n 1
}
# cap DEV PORT: tcpdump of PORT's data on DEV.
cap() {
	/opt/gso/bin/tcpdump -Z root -i "$1" -n -s 200 -B 16384 --immediate-mode \
		-w $N/$1-$2.pcap "tcp and dst port $2" 2> $N/$1-$2.tcpdump.log &
	echo $! >> $N/caps-$2
	track $!
	waitc 10 grep -q 'listening on' $N/$1-$2.tcpdump.log || fail "tcpdump on $1: $(cat $N/$1-$2.tcpdump.log)"
}
# cap_end PORT: stop PORT's captures, report drops.
cap_end() {
	for p in $(cat $N/caps-$1); do kill -INT "$p" 2>/dev/null; done
	for p in $(cat $N/caps-$1); do wait "$p" 2>/dev/null; done
	grep -h 'dropped by kernel' $N/*-$1.tcpdump.log | sed "s/^/NVQ: capture $1 /"
}
recv 5201 192.0.2.2 $STREAM1
cap tapv 5201
cap vnic0 5201
if [ "$MODE" = nsim ]; then
	recv 5202 192.0.2.2 $STREAM2
	recv 5203 198.51.100.2 $STREAM2
	recv 5204 192.0.2.2 $STREAM4
	recv 5205 2001:db8::2 $STREAM6
	recv 5206 2001:db8:1::2 $STREAM6
	# Held: the migration's stream may only end after the switchover.
	kill -STOP "$RPID_5204"
	cap tapv 5202
	cap vnic0 5202
	cap tapc 5203
	cap cnic0 5203
	cap tapv 5205
	cap vnic0 5205
	cap tapc 5206
	cap cnic0 5206
fi

waitc "$BOOT_S" seen_or_dead 'NESTED-LIMITS:' || fail "no limits from the nested guest in $BOOT_S s"
seen 'NESTED-LIMITS:' || fail "nested QEMU ended before the guest reported"
say "nested-boot-ms $(( $(ms) - t0 ))"
say "first-limits $(grep -m1 'NESTED-LIMITS:' $N/console.log | tr -d '\r' | sed 's/.*NESTED-LIMITS: //')"
say "ctrl-limits $(grep -m1 'NESTED-CTRL-LIMITS:' $N/console.log | tr -d '\r' | sed 's/.*NESTED-CTRL-LIMITS: //')"
# The daemon normally sets 64000/64 before the guest's driver probes; if
# it came later, it arrives as a config change.
waitc 30 seen_or_dead 'NESTED-LIMITS: 64000 64 ' || true
say "path-limits $(grep 'NESTED-LIMITS: 64000 64 ' $N/console.log | head -n 1 | tr -d '\r' | sed 's/.*NESTED-LIMITS: //')"

# /dev/vhost-net in use by QEMU PID: an open fd, and vhost's worker thread
# ("vhost-PID": a task of QEMU on 6.4+, a kernel thread before).
vhost_use() {
	nfd=$(ls -l /proc/"$1"/fd 2>/dev/null | grep -c vhost-net)
	worker=$(cat /proc/"$1"/task/*/comm /proc/[0-9]*/comm 2>/dev/null | grep -m1 "^vhost-$1\$")
	echo "$nfd ${worker:-none}"
}
say "vhost-fds $(vhost_use "$QEMU_PID")"

# The stream at 64000/64: received intact, nothing segmented in software
# between the tap and the egress port.
waitc 90 seen_or_dead 'NESTED-STREAM:' || true
say "stream-send $(grep -m1 'NESTED-STREAM:' $N/console.log | tr -d '\r' | sed 's/.*NESTED-STREAM: //')"
say "stream-recv $(recv_end 5201)"
cap_end 5201
gso-hist tap=$N/tapv-5201.pcap nic=$N/vnic0-5201.pcap --top 5 > $N/hist.txt 2>&1
sed 's/^/NVQ-HIST: /' $N/hist.txt

t1=$(ms)
if [ "$MODE" = nsim ]; then
	# The main path's streams after the drop use 536-byte segments too.
	nsenter -t "$PEER" -n $IP route replace 192.0.2.0/24 dev vnic1 proto kernel scope link \
		src 192.0.2.2 advmss 536 || fail "vnic1's route"
	# Both bridge ports drop to 32000/32: the netdevsim port through its
	# knobs (the device's own limits), vnic0 as an admin does; the patched
	# kernel announces both.
	echo 32000 > $knobs/tso_max_size && echo 32 > $knobs/tso_max_segs ||
		fail "changing the netdevsim knobs"
	$IP link set vnic0 gso_max_size 32000 gso_max_segs 32 || fail "changing vnic0's gso_max_*"
else
	# The unpatched kernel announces no gso_max_* change (kernel patch
	# 0014 is what does): change the alias in the same request, so that
	# an RTM_NEWLINK reaches the daemon, as tier 1 does.
	$IP link set vnic0 gso_max_size 32000 gso_max_segs 32 alias gso-t61-changed ||
		fail "changing the veth's gso_max_*"
fi
if waitc "$FOLLOW_S" seen_or_dead 'NESTED-LIMITS: 32000 32 ' &&
	seen 'NESTED-LIMITS: 32000 32 '; then
	say "follow-ms $(( $(ms) - t1 ))"
else
	say "follow-ms timeout"
fi

if [ "$MODE" = nsim ]; then
	# After the drop: the main NIC's stream within 32000/32, the control
	# NIC's (the feature off) cut on the host; IPv4, then IPv6.
	waitc 150 seen_or_dead 'NESTED-STREAM6:' || true
	for s in 2 3 5 6; do
		say "stream$s-send $(grep -m1 "NESTED-STREAM$s:" $N/console.log | tr -d '\r' | sed "s/.*NESTED-STREAM$s: //")"
	done
	say "stream2-recv $(recv_end 5202)"
	say "stream3-recv $(recv_end 5203)"
	say "stream5-recv $(recv_end 5205)"
	say "stream6-recv $(recv_end 5206)"
	cap_end 5202
	cap_end 5203
	cap_end 5205
	cap_end 5206
	# 536-byte advmss: 524-byte segments (12 bytes of TCP timestamps);
	# gso-hist's guess in 536-1460 would take a multiple of them.
	echo "NVQ-HIST2: $(gso-hist --mss 524 --json tap=$N/tapv-5202.pcap nic=$N/vnic0-5202.pcap | tr -d '\n')"
	echo "NVQ-HIST3: $(gso-hist --mss 524 --json tap=$N/tapc-5203.pcap nic=$N/cnic0-5203.pcap | tr -d '\n')"
	echo "NVQ-HIST5: $(gso-hist --mss 524 --json tap=$N/tapv-5205.pcap nic=$N/vnic0-5205.pcap | tr -d '\n')"
	echo "NVQ-HIST6: $(gso-hist --mss 524 --json tap=$N/tapc-5206.pcap nic=$N/cnic0-5206.pcap | tr -d '\n')"

	# --- migration with vhost=on --------------------------------------
	# The destination: the same devices on taps of its own (QEMU creates
	# them here) in the same bridges; the daemon gives it the path's
	# 32000/32 while it waits.  The guest's fourth stream is held (its
	# receiver stopped) until the destination reports "completed".
	DPID=
	eval "timeout -s KILL $(left) $(nested_qemu dst tapw tapcw -incoming unix:$N/mig.sock)" \
		> $N/dst-qemu.out 2> $N/dst-qemu.err &
	DPID=$!
	track $DPID
	waitc 10 test -s $N/dst.pid || fail "destination QEMU did not start"
	DST_PID=$(cat $N/dst.pid)
	exec 5> $N/dst-mq.in 6< $N/dst-mq.out
	qmp 5 6 '{"execute":"qmp_capabilities"}' > /dev/null || fail "no QMP on the destination's pipe"
	waitc 10 $IP link show dev tapcw > /dev/null 2>&1 || fail "the destination's taps did not appear"
	$IP link set tapw master br0 up && $IP link set tapcw master brc up || fail "enslaving tapw, tapcw"
	waitc 30 grep -q 'size 32000 segs 32: ' $N/dst-qemu.err ||
		say "error: the daemon did not set the destination to 32000/32"
	# The guest's fourth stream is under way (bytes queued at the held
	# receiver): migrate.
	# recvq: the bytes queued at the held receiver (netstat's Recv-Q).
	recvq() { nsenter -t "$PEER" -n netstat -tn 2>/dev/null | awk '$4 ~ /:5204$/ && $6 == "ESTABLISHED" { print $2 }'; }
	recvq_some() { [ "$(recvq)" -gt 0 ] 2>/dev/null; }
	waitc 60 recvq_some || say "error: the fourth stream did not start"
	t2=$(ms)
	qmp 7 8 "{\"execute\":\"migrate\",\"arguments\":{\"uri\":\"unix:$N/mig.sock\"}}" > $N/migrate.log ||
		say "error: migrate: $(cat $N/migrate.log)"
	mig_dst() { qmp 5 6 '{"execute":"query-migrate"}' | grep -o '"status": *"[a-z-]*"' | tail -n 1 | sed 's/.*"\([a-z-]*\)"$/\1/'; }
	mig_over() { st=$(mig_dst); [ "$st" = completed ] || [ "$st" = failed ] || ! dst_alive; }
	waitc 120 mig_over || true
	say "mig-dst-status $(mig_dst)"
	say "mig-src-status $(qmp 7 8 '{"execute":"query-migrate"}' | grep -o '"status": *"[a-z-]*"' | tail -n 1 | sed 's/.*"\([a-z-]*\)"$/\1/')"
	say "mig-ms $(( $(ms) - t2 ))"
	say "mig-recvq $(recvq)"
	qmp 7 8 '{"execute":"quit"}' > /dev/null
	# The destination runs the guest (the stream still held): vhost-net
	# in use there.  (After the stream the guest exits at once.)
	say "dst-vhost-fds $(vhost_use "$DST_PID")"
	kill -CONT "$RPID_5204"
	say "stream4-recv $(recv_end 5204 150)"
	waitc 60 dst_seen_or_dead 'NESTED-LIMITS-END:' || true
	say "stream4-send $(grep -m1 'NESTED-STREAM4:' $N/dst-console.log | tr -d '\r' | sed 's/.*NESTED-STREAM4: //')"
	say "end-limits $(grep -m1 'NESTED-LIMITS-END:' $N/dst-console.log | tr -d '\r' | sed 's/.*NESTED-LIMITS-END: //')"
	waitc 60 sh -c "! kill -0 $DPID 2>/dev/null" || { say "destination qemu still running: killed"; kill -9 "$DPID"; }
	wait "$DPID" 2>/dev/null
	say "nested-exit $(tr -dc '0-9' < $N/dst-ret 2>/dev/null)"
	wait "$QPID" 2>/dev/null
else
	# The guest ends by itself (reboot -f, -no-reboot).
	waitc 60 sh -c "! kill -0 $QPID 2>/dev/null" || { say "nested qemu still running: killed"; kill -9 "$QPID"; }
	wait "$QPID" 2>/dev/null
	say "nested-exit $(tr -dc '0-9' < $N/ret 2>/dev/null)"
fi
kill -0 "$LDPID" 2>/dev/null && say "limitsd running" || say "limitsd exited"
say "nested-total-ms $(( $(ms) - t0 ))"
dump
exit 0
HOSTVM
}

# The host VMs: one namespace each (they have no NIC; vm_start wants one).
declare -A VM_OF START_OF
for c in $CASES; do
	case "$c" in
	vhost) mode=nsim kernel=$GSO_KERNEL ;;
	fallback)
		mode=veth
		kernel=${GSO_KERNEL_UNPATCHED:-$("$GSO_TOP/scripts/build-kernel.sh" --unpatched)} ;;
	*) die "unknown case $c" ;;
	esac
	setup_ns HOSTNS
	script=$TEST_LOG_DIR/hostvm-$c.sh
	hostvm_script "$mode" > "$script"
	VM_OF[$c]=hostvm-$c
	# gso.ctl: the deadline's "stop" (see the bounds above), through a
	# pipe chardev (FIFOs NAME.in, NAME.out; QEMU holds both ends open).
	ctl=$TEST_LOG_DIR/hostvm-$c.ctl
	rm -f "$ctl.in" "$ctl.out"
	mkfifo "$ctl.in" "$ctl.out"
	GSO_VM_TIMEOUT=$HOSTVM_TIMEOUT VM_KERNEL=$kernel VM_EXTRA_INITRD=$hostvm_cpio \
		VM_APPEND="loglevel=4 kunit.enable=0" vm_start "hostvm-$c" "$HOSTNS" "$script" -m 1024 -smp 2 \
		-chardev "pipe,id=ctl,path=$ctl" -device virtserialport,bus=vser0.0,chardev=ctl,name=gso.ctl
	START_OF[$c]=$(date +%s)
	# The writer must not block on a FIFO whose reader (QEMU) is gone.
	sh -c 'sleep "$1" && timeout 5 sh -c "echo stop > \"\$0\"" "$2"' _ "$DEADLINE_S" "$ctl.in" &
	defer "pkill -P $! 2>/dev/null; kill $! 2>/dev/null"
done

# console VM: the host VM's console, without CRs (empty if it has none).
console() { tr -d '\r' < "$TEST_LOG_DIR/$1.console.log" 2>/dev/null || true; }
# nvq VM KEY: the value of the host VM's last "NVQ: KEY value" line.
nvq() { console "$1" | sed -n "s/^NVQ: $2 //p" | tail -n 1; }
# fail_tail VM: why, for a FAIL line: the host VM's last lines, then the
# last lines it copied from the nested guest and QEMU.
fail_tail() {
	printf '    last console lines of %s:\n' "$1"
	console "$1" | sed '/^NVQ-/d' | tail -n 8 | sed 's/^/      /'
	console "$1" | sed -n '/^NVQ-/p' | tail -n 12 | sed 's/^/      /'
}

# hist_json VM N: the host VM's NVQ-HISTN JSON as a file (jq reads it).
hist_json() {
	local f=$TEST_LOG_DIR/$1-hist$2.json
	console "$1" | sed -n "s/^NVQ-HIST$2: //p" > "$f"
	jq -e .mss "$f" > /dev/null 2>&1 || echo '{"mss":0,"files":[{},{}],"histogram":[]}' > "$f"
	echo "$f"
}
# stream_ok VM N PORT BYTES: the nested sender and the receiver of stream
# N (port PORT) both say all BYTES arrived intact, no capture dropped any.
stream_ok() {
	local send recv
	send=$(nvq "$1" "stream$2-send") recv=$(nvq "$1" "stream$2-recv")
	case "$send" in rc=0*) ;; *) check_err 1 "stream $2: the nested guest's sender: '${send:-nothing}'" ;; esac
	grep -q "bytes=$4 .*content=ok" <<< "$recv" || check_err 1 "stream $2: the receiver: '${recv:-nothing}'"
	console "$1" | grep -qE "^NVQ: capture $3 [1-9][0-9]* packets dropped by kernel" &&
		check_err 1 "stream $2: a capture dropped packets"
	return 0
}

# After the drop to 32000/32 (both bridge ports), 536-byte segments: the
# segment limit binds (32 x 524 = 16768 < 32000), and the patched host
# enforces it on tap traffic.  The guest's frames stay within both limits
# and leave the egress veth as they came (identical histograms, 0 bytes
# segmented in software).
# check_after_drop VM N PORT 4|6 BYTES: stream N of BYTES on PORT, over
# IPv4 or IPv6 (an IPv6 frame carries 86 bytes of headers, not 66: its
# largest payload within 32000 bytes is smaller; at 32 x 524 the segment
# limit still binds).
check_after_drop() {
	local h mss max tapb nicb sw hdr=66 v='' bytes=$5
	[ "$4" = 6 ] && hdr=86 v="IPv6 "
	h=$(hist_json "$1" "$2")
	stream_ok "$1" "$2" "$3" "$bytes"
	mss=$(jq -r '.mss // 0' "$h")
	max=$(jq -r '.files[0].max_payload // 0' "$h")
	tapb=$(jq -r '.files[0].payload_bytes // 0' "$h")
	nicb=$(jq -r '.files[1].payload_bytes // 0' "$h")
	sw=$(jq -r '.segmented_in_software.bytes // "none"' "$h")
	check_eq "${v}after the drop: payload bytes on tapv, vnic0" "$tapb $nicb" "$bytes $bytes"
	check_eq "${v}after the drop: MSS (536-byte advmss, timestamps)" "$mss" 524
	{ [ "$max" -le $((32 * mss)) ] && [ $((max + hdr)) -lt 32000 ]; } ||
		check_err 1 "${v}after the drop: largest tap payload $max is over 32 x $mss or 32000 - $hdr bytes"
	[ "$max" -gt $((16 * mss)) ] || check_err 1 "${v}after the drop: largest tap payload $max: no GSO frames near the segment limit"
	check_eq "${v}after the drop: bytes segmented in software" "$sw" 0
	[ "$(jq -r '[.histogram[] | select(.counts[0] != .counts[1])] | length' "$h")" = 0 ] ||
		check_err 1 "${v}after the drop: tap and egress histograms differ"
	[ "$RET" -eq 0 ] || fail_tail "$1"
	log_test "vhost qemu vhost: ${v}after 64000/64 -> 32000/32, $((bytes >> 20)) MiB within 32 segs (max $max = $((max / (mss > 0 ? mss : 1))) x $mss), egress == tap, 0 segmented"
}

# The control: the nested guest's second NIC, the feature off, on a port at
# 65536 bytes / 32 segments: its frames of more than 32 segments are cut on
# the host.  The project's kernel carries the net core series
# (kernel-split-patches/): it cuts them into GSO packets of at most 32
# segments (gso_split) rather than into single segments, so the check is
# that none of the tap's frames over 32 segments leaves the egress port as
# it came, and every byte does.
# check_control VM N PORT 4|6 BYTES: stream N of BYTES on PORT, over IPv4
# or IPv6.
check_control() {
	local h mss max tapover nicover sw tapb nicb v='' bytes=$5
	[ "$4" = 6 ] && v="IPv6 "
	h=$(hist_json "$1" "$2")
	stream_ok "$1" "$2" "$3" "$bytes"
	check_eq "control NIC's limits (feature off)" "$(nvq "$1" ctrl-limits)" "65536 65535 65536"
	mss=$(jq -r '.mss // 0' "$h")
	max=$(jq -r '.files[0].max_payload // 0' "$h")
	tapb=$(jq -r '.files[0].payload_bytes // 0' "$h")
	nicb=$(jq -r '.files[1].payload_bytes // 0' "$h")
	sw=$(jq -r '.segmented_in_software.bytes // 0' "$h")
	tapover=$(jq -r "[.histogram[] | select(.payload_size > 32 * $mss) | .payload_size * .counts[0]] | add // 0" "$h")
	nicover=$(jq -r "[.histogram[] | select(.payload_size > 32 * $mss) | .payload_size * .counts[1]] | add // 0" "$h")
	check_eq "${v}control: payload bytes on tapc, cnic0" "$tapb $nicb" "$bytes $bytes"
	check_eq "${v}control: MSS" "$mss" 524
	[ "$tapover" -gt 0 ] 2>/dev/null ||
		check_err 1 "${v}control: no tap frame over 32 segments (largest $max): no control"
	check_eq "${v}control: egress bytes in frames over 32 segments" "$nicover" 0
	[ "$RET" -eq 0 ] || fail_tail "$1"
	log_test "vhost qemu vhost: ${v}control NIC, feature off: $tapover bytes in frames over 32 segs (max $max) cut on the host ($sw of them into MSS segments)"
}

# Migration with vhost=on: the nested guest moves to a second QEMU
# (vhost=on, taps in the same bridges, 32000/32 from the daemon) while its
# fourth stream is held mid-way; the stream ends on the destination.
check_migration() {
	local q fds
	check_eq "migration: destination's status" "$(nvq "$1" mig-dst-status)" completed
	check_eq "migration: source's status" "$(nvq "$1" mig-src-status)" completed
	q=$(nvq "$1" mig-recvq)
	{ [ "${q:-0}" -gt 0 ] && [ "$q" -lt "$STREAM4" ]; } 2>/dev/null ||
		check_err 1 "migration: the peer held '${q:-nothing}' of $STREAM4 bytes at the switchover: the stream did not cross it"
	stream_ok "$1" 4 5204 "$STREAM4"
	fds=$(nvq "$1" dst-vhost-fds)
	{ [ "${fds%% *}" -ge 1 ] 2>/dev/null && [ "${fds##* }" != none ]; } ||
		check_err 1 "the destination QEMU does not use /dev/vhost-net: '$fds'"
	check_eq "guest's limits on the destination" "$(nvq "$1" end-limits)" "32000 32 32000"
	[ "$RET" -eq 0 ] || fail_tail "$1"
	log_test "vhost qemu vhost: migration with vhost=on ($(nvq "$1" mig-ms) ms): completed, 32000/32 kept, stream crossed ($q bytes held)"
}

TIMES=$TEST_LOG_DIR/t61-times.txt
: > "$TIMES"
for c in $CASES; do
	vm=${VM_OF[$c]}
	rc=0
	vm_wait "$vm" || rc=$?
	wall=$(( $(date +%s) - START_OF[$c] ))
	con=$TEST_LOG_DIR/$vm.console.log
	trace=$(console "$vm" | sed -n 's/^NVQ-QEMU: //p')
	boot_ms=$(nvq "$vm" nested-boot-ms)
	host_ms=$(nvq "$vm" host-up-ms)
	{
		echo "$c: host VM wall ${wall} s, host VM at init ${host_ms:-?} ms (its clock)"
		echo "$c: nested boot to first limits ${boot_ms:-?} ms"
		echo "$c: change followed in $(nvq "$vm" follow-ms) ms"
	} >> "$TIMES"

	{ [ -n "$(nvq "$vm" 'nested qemu started,')" ] && [ -n "$boot_ms" ]; } ||
		check_err $? "the nested guest did not report its limits ($con)"
	[ "$RET" -eq 0 ] || fail_tail "$vm"
	log_test "vhost qemu $c: nested guest boots in the host VM ($GSO_ACCEL, ${boot_ms:-?} ms)"

	first=$(nvq "$vm" first-limits)
	got=$(nvq "$vm" path-limits)
	check_eq "nested guest's tso_max_size/segs (first: ${first% *})" "${got% *}" "64000 64"
	if [ "$c" = vhost ]; then
		log_test "vhost qemu $c: tap outside QEMU's netns: gso-limitsd gives the guest 64000/64"
	else
		log_test "vhost qemu $c: gso-limitsd gives the guest the egress port's 64000/64"
	fi

	fds=$(nvq "$vm" vhost-fds)
	{ [ "${fds%% *}" -ge 1 ] 2>/dev/null && [ "${fds##* }" != none ]; } ||
		check_err $? "nested QEMU does not use /dev/vhost-net: '$fds'"
	log_test "vhost qemu $c: QEMU uses /dev/vhost-net (fd and worker thread)"

	# The 8 MiB stream at 64000/64 through vhost-net: intact, real GSO
	# packets on the tap, none of them segmented on the way to vnic0.
	send=$(nvq "$vm" stream-send)
	recv=$(nvq "$vm" stream-recv)
	hist=$(console "$vm" | sed -n 's/^NVQ-HIST: //p')
	seg=$(sed -n 's/^bytes segmented in software: \([0-9]*\).*/\1/p' <<< "$hist")
	tapmax=$(sed -n 's/^tap: .* max_payload \([0-9]*\) .*/\1/p' <<< "$hist")
	tapbytes=$(sed -n 's/^tap: .* payload_bytes \([0-9]*\) .*/\1/p' <<< "$hist")
	nicbytes=$(sed -n 's/^nic: .* payload_bytes \([0-9]*\) .*/\1/p' <<< "$hist")
	case "$send" in rc=0*) ;; *) check_err 1 "the nested guest's sender: '${send:-nothing}'" ;; esac
	grep -q "bytes=$STREAM1 .*content=ok" <<< "$recv" ||
		check_err 1 "the receiver: '${recv:-nothing}'"
	console "$vm" | grep -qE '^NVQ: capture [1-9][0-9]* packets dropped by kernel' &&
		check_err 1 "a capture dropped packets"
	# Every byte on both captures: the stream crossed the egress port.
	{ [ "$tapbytes" = "$STREAM1" ] && [ "$nicbytes" = "$STREAM1" ]; } ||
		check_err 1 "payload bytes captured: tap ${tapbytes:-none}, vnic0 ${nicbytes:-none} (want $STREAM1 each)"
	[ "${tapmax:-0}" -gt 14480 ] 2>/dev/null ||
		check_err 1 "no GSO packet on the tap (largest payload ${tapmax:-none}): nothing to prove"
	[ "${tapmax:-0}" -le 64000 ] 2>/dev/null ||
		check_err 1 "a tap payload of $tapmax is over the 64000-byte limit"
	[ "$seg" = 0 ] || check_err 1 "bytes segmented in software: ${seg:-no histogram}"
	if [ "$RET" -ne 0 ]; then printf '%s\n' "$hist" | sed 's/^/      /'; fi
	log_test "vhost qemu $c: $((STREAM1 >> 20)) MiB at 64000/64 intact, 0 bytes segmented in software (largest ${tapmax:-?})"

	follow=$(nvq "$vm" follow-ms)
	{ [ -n "$follow" ] && [ "$follow" != timeout ]; } ||
		check_err $? "the guest did not report 32000/32 within $NESTED_FOLLOW_S s"
	[ "$RET" -eq 0 ] || fail_tail "$vm"
	log_test "vhost qemu $c: guest follows 64000/64 -> 32000/32 (${follow:-?} ms)"

	if [ "$c" = vhost ]; then
		check_after_drop "$vm" 2 5202 4 "$STREAM2"
		check_control "$vm" 3 5203 4 "$STREAM2"
		check_after_drop "$vm" 5 5205 6 "$STREAM6"
		check_control "$vm" 6 5206 6 "$STREAM6"
		check_migration "$vm"
	fi

	# Who set what: the daemon's log and QEMU's trace of the device.
	ld=$(console "$vm" | sed -n 's/^NVQ-LD: //p')
	for v in "64000 segs 64" "32000 segs 32"; do
		grep -q "set size $v " <<< "$ld" ||
			check_err 1 "gso-limitsd's log has no 'set size $v'"
		grep -q "virtio_net_gso_limits .*size $v: " <<< "$trace" ||
			check_err 1 "QEMU's trace does not show size $v"
	done
	grep -q "virtio_net_gso_limits .*size 32000 segs 32: config change notified" <<< "$trace" ||
		check_err 1 "QEMU's trace does not show the change to 32000/32 notified"
	check_eq "gso-limitsd at the end" "$(nvq "$vm" limitsd)" running
	if [ "$RET" -ne 0 ]; then
		echo "      QEMU's trace and the daemon's log, last lines:"
		{ grep 'gso_limits' <<< "$trace" || true; } | tail -n 6 | sed 's/^/        /'
		tail -n 6 <<< "$ld" | sed 's/^/        /'
	fi
	log_test "vhost qemu $c: gso-limitsd set 64000/64 and 32000/32, QEMU notified the change"

	check_eq "nested guest's exit code" "$(nvq "$vm" nested-exit)" 0
	check_eq "host VM's exit code" "$rc" 0
	[ "$RET" -eq 0 ] || fail_tail "$vm"
	log_test "vhost qemu $c: nested guest and host VM exit 0"
done
sed 's/^/    /' "$TIMES"

tests_exit
