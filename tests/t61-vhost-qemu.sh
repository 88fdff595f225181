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
# path's limits with qom-set host-gso-limits.  In both cases, at 64000/64,
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
#             daemon's log show both values set and notified.
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
# ~75 s when it has the machine to itself.
NESTED_BOOT_S=${NESTED_BOOT_S:-240}    # nested QEMU start -> first limits line
NESTED_FOLLOW_S=${NESTED_FOLLOW_S:-60} # port change -> guest reports it
HOSTVM_TIMEOUT=${HOSTVM_TIMEOUT:-420}  # whole host VM (GSO_VM_TIMEOUT)
CASES=${T61_CASES:-vhost fallback}

vm_init
hostvm_cpio=$("$GSO_TOP/scripts/build-hostvm-initramfs.sh" --qemu "$GSO_QEMU" --kernel "$GSO_KERNEL") || {
	log_test "vhost qemu: host VM initramfs with QEMU" FAIL "scripts/build-hostvm-initramfs.sh failed"
	exit $ksft_fail
}
log_test "vhost qemu: host VM initramfs with QEMU ($(du -h "$hostvm_cpio" | cut -f1))"

# hostvm_script MODE: the host VM's /test.sh (busybox sh).  MODE nsim:
# netdevsim port, run-time change; MODE veth: veth port, no knobs.
# Every line the outer test reads starts with "NVQ:"; the nested console
# and QEMU's stderr are copied as "NVQ-CON:" and "NVQ-QEMU:".
hostvm_script() {
	printf 'MODE=%s\nBOOT_S=%s\nFOLLOW_S=%s\n' "$1" "$NESTED_BOOT_S" "$NESTED_FOLLOW_S"
	cat <<'HOSTVM'
IP=/opt/gso/bin/ip
QEMU=/usr/local/bin/qemu-system-x86_64
N=/tmp/nested
say() { echo "NVQ: $*"; }
ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
dump() {
	sed 's/^/NVQ-CON: /' $N/console.log 2>/dev/null | tr -d '\r' | tail -n 60
	sed 's/^/NVQ-QEMU: /' $N/qemu.err 2>/dev/null | tail -n 40
	sed 's/^/NVQ-LD: /' $N/limitsd.log 2>/dev/null | tail -n 40
}
fail() { say "error: $*"; dump; exit 1; }
# wait_for SECONDS CMD...: retry CMD every 0.25 s.
wait_for() {
	local end=$(( $(ms) + $1 * 1000 ))
	shift
	while ! "$@"; do
		[ "$(ms)" -lt "$end" ] || return 1
		sleep 0.25
	done
}
qemu_alive() { [ -n "$QPID" ] && kill -0 "$QPID" 2>/dev/null; }
seen() { grep -q "$1" $N/console.log 2>/dev/null; }
seen_or_dead() { seen "$1" || ! qemu_alive; }

mkdir -p $N/root
say "host $(uname -r), $(nproc) cpus, mode $MODE"
say "host-up-ms $(ms)"
[ -c /dev/vhost-net ] || fail "no /dev/vhost-net"
[ -c /dev/net/tun ] || fail "no /dev/net/tun"

# --- topology: br0 = { egress port at 64000/64, tapv } -------------------
# vnic0, a veth at r8169's 64000/64 like tier 1's nic0, carries the nested
# guest's stream to vnic1 (192.0.2.2) in a peer namespace: were the
# address in this one, the bridge would answer the guest's ARP itself and
# deliver the stream locally, never through vnic0.  MODE nsim adds the
# netdevsim port, whose limits change at run time.
$IP link add br0 type bridge || fail "bridge"
$IP link set br0 up
$IP link add vnic0 type veth peer name vnic1 || fail "veth"
$IP link set vnic0 gso_max_size 64000 gso_max_segs 64 || fail "veth gso_max_*"
unshare -n sleep 900 &
PEER=$!
wait_for 5 sh -c "[ \"\$(readlink /proc/$PEER/ns/net)\" != \"\$(readlink /proc/self/ns/net)\" ]" ||
	fail "the peer namespace"
$IP link set vnic1 netns "$PEER" || fail "moving vnic1 to the peer namespace"
nsenter -t "$PEER" -n $IP addr add 192.0.2.2/24 dev vnic1 || fail "vnic1's address"
nsenter -t "$PEER" -n $IP link set vnic1 up || fail "vnic1 up"
$IP link set vnic0 master br0 up || fail "enslaving vnic0"
port=vnic0
if [ "$MODE" = nsim ]; then
	echo "61 1" > /sys/bus/netdevsim/new_device || fail "netdevsim new_device"
	wait_for 5 sh -c 'ls /sys/bus/netdevsim/devices/netdevsim61/net/ 2>/dev/null | grep -q .' ||
		fail "the netdevsim port did not appear"
	port=$(ls /sys/bus/netdevsim/devices/netdevsim61/net/ | head -n 1)
	knobs=/sys/kernel/debug/netdevsim/netdevsim61/ports/0
	[ -e $knobs/tso_max_size ] || fail "no netdevsim knob $knobs/tso_max_size"
	echo 64000 > $knobs/tso_max_size && echo 64 > $knobs/tso_max_segs ||
		fail "setting the netdevsim knobs"
	$IP link set "$port" master br0 up || fail "enslaving $port"
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
cat > $N/root/test.sh <<'NESTED'
. /etc/gso-guest.sh
i=0
while [ ! -e /sys/class/net/eth0 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
net_up 192.0.2.1 2001:db8::1 || echo "NESTED-ERROR: net_up"
last= i=0 streamed=
# Up to 200 s: report every change; at 64000/64 send the stream once
# (8 MiB, content-checked by the receiver); end at 32000/32.
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
			gso-stream send 192.0.2.2 5201 8388608 --timeout 120 > /tmp/send.log 2>&1
			echo "NESTED-STREAM: rc=$? $(tail -n 1 /tmp/send.log)"
		fi ;;
	esac
	sleep 0.25
	i=$((i + 1))
done
dmesg | grep -i -E 'virtio_net|gso' | sed 's/^/NESTED-DMESG: /'
case "$cur" in "32000 32 "*) exit 0 ;; esac
exit 1
NESTED
chmod 755 $N/root/test.sh
files=test.sh
cp /opt/gso/guest.cpio.gz $N/initrd
(cd $N/root && for f in $files; do echo "$f"; done | cpio -o -H newc -R 0:0 2>/dev/null | gzip) >> $N/initrd ||
	fail "nested initrd"

# MODE nsim: QEMU in a network namespace of its own (unshare -n) creates
# tapv there; it is moved to br0 below, out of QEMU's sight.
NETNS=
[ "$MODE" = nsim ] && NETNS="unshare -n"
t0=$(ms)
QPID=
timeout -s KILL 300 $NETNS $QEMU -M pc -accel tcg -m 256 -smp 1 -nodefaults -no-user-config \
	-vga none -display none -no-reboot -L /usr/share/qemu -bios qboot.rom \
	-kernel /opt/gso/bzImage -initrd $N/initrd \
	-append "console=ttyS0 panic=-1 oops=panic loglevel=4" \
	-chardev file,id=con,path=$N/console.log -serial chardev:con \
	-device virtio-serial-pci,id=vser0 \
	-chardev file,id=ret,path=$N/ret \
	-device virtserialport,bus=vser0.0,chardev=ret,name=gso.ret \
	-netdev tap,id=n0,ifname=tapv,script=no,downscript=no,vhost=on \
	-device virtio-net-pci,id=net0,netdev=n0,host_gso_max_segs=65535,romfile= \
	-qmp unix:$N/qmp.sock,server=on,wait=off \
	-trace virtio_net_gso_limits \
	-pidfile $N/pid > $N/qemu.out 2> $N/qemu.err &
QPID=$!
wait_for 10 test -s $N/pid || fail "nested QEMU did not start"
QEMU_PID=$(cat $N/pid)
say "nested qemu started, pid $QEMU_PID"
if [ "$MODE" = nsim ]; then
	# Long before the guest's driver probes (the nested boot takes
	# minutes): move the tap into this namespace's bridge.
	wait_for 10 nsenter -t "$QEMU_PID" -n $IP link show dev tapv >/dev/null 2>&1 ||
		fail "tapv did not appear in QEMU's namespace"
	nsenter -t "$QEMU_PID" -n $IP link set dev tapv netns 1 || fail "moving tapv"
	$IP link set tapv master br0 up || fail "enslaving tapv"
	nsenter -t "$QEMU_PID" -n $IP link show dev tapv >/dev/null 2>&1 &&
		fail "tapv still visible in QEMU's namespace"
	say "tapv moved out of QEMU's namespace into br0"
fi

# The stream's receiver and the captures on the tap and on the egress
# veth, as tier 1 takes them (tests/harness/bulk.sh).
nsenter -t "$PEER" -n gso-stream recv -l 192.0.2.2 --expect 8388608 --timeout 280 5201 > $N/recv.log 2>&1 &
RPID=$!
for dev in tapv vnic0; do
	/opt/gso/bin/tcpdump -Z root -i $dev -n -s 200 -B 32768 --immediate-mode \
		-w $N/$dev.pcap "tcp and dst port 5201" 2> $N/$dev.tcpdump.log &
	eval "CAP_$dev=\$!"
	wait_for 10 grep -q 'listening on' $N/$dev.tcpdump.log || fail "tcpdump on $dev: $(cat $N/$dev.tcpdump.log)"
done

wait_for "$BOOT_S" seen_or_dead 'NESTED-LIMITS:' || fail "no limits from the nested guest in $BOOT_S s"
seen 'NESTED-LIMITS:' || fail "nested QEMU ended before the guest reported"
say "nested-boot-ms $(( $(ms) - t0 ))"
say "first-limits $(grep -m1 'NESTED-LIMITS:' $N/console.log | tr -d '\r' | sed 's/.*NESTED-LIMITS: //')"
# The daemon normally sets 64000/64 before the guest's driver probes; if
# it came later, it arrives as a config change.
wait_for 30 seen_or_dead 'NESTED-LIMITS: 64000 64 ' || true
say "path-limits $(grep 'NESTED-LIMITS: 64000 64 ' $N/console.log | head -n 1 | tr -d '\r' | sed 's/.*NESTED-LIMITS: //')"

# /dev/vhost-net in use: an open fd, and vhost's worker thread (a
# "vhost-PID" task of QEMU on 6.4+, a kernel thread before).
nfd=$(ls -l /proc/"$QEMU_PID"/fd 2>/dev/null | grep -c vhost-net)
worker=$(cat /proc/"$QEMU_PID"/task/*/comm /proc/[0-9]*/comm 2>/dev/null | grep -m1 '^vhost-')
say "vhost-fds $nfd worker ${worker:-none}"

# The stream at 64000/64: received intact, nothing segmented in software
# between the tap and the egress port.
wait_for 150 seen_or_dead 'NESTED-STREAM:' || true
say "stream-send $(grep -m1 'NESTED-STREAM:' $N/console.log | tr -d '\r' | sed 's/.*NESTED-STREAM: //')"
wait_for 20 sh -c "! kill -0 $RPID 2>/dev/null" || kill "$RPID" 2>/dev/null
say "stream-recv $(grep 'role=recv' $N/recv.log | tail -n 1)"
kill -INT "$CAP_tapv" "$CAP_vnic0" 2>/dev/null
wait "$CAP_tapv" "$CAP_vnic0" 2>/dev/null
grep -h 'dropped by kernel' $N/tapv.tcpdump.log $N/vnic0.tcpdump.log | sed 's/^/NVQ: capture /'
gso-hist tap=$N/tapv.pcap nic=$N/vnic0.pcap --top 5 > $N/hist.txt 2>&1
sed 's/^/NVQ-HIST: /' $N/hist.txt

t1=$(ms)
if [ "$MODE" = nsim ]; then
	echo 32000 > $knobs/tso_max_size && echo 32 > $knobs/tso_max_segs ||
		fail "changing the netdevsim knobs"
else
	# The unpatched kernel announces no gso_max_* change (kernel patch
	# 0006 is what does): change the alias in the same request, so that
	# an RTM_NEWLINK reaches QEMU's link listener, as tier 1 does.
	$IP link set vnic0 gso_max_size 32000 gso_max_segs 32 alias gso-t61-changed ||
		fail "changing the veth's gso_max_*"
fi
if wait_for "$FOLLOW_S" seen_or_dead 'NESTED-LIMITS: 32000 32 ' &&
	seen 'NESTED-LIMITS: 32000 32 '; then
	say "follow-ms $(( $(ms) - t1 ))"
else
	say "follow-ms timeout"
fi

# The guest ends by itself (reboot -f, -no-reboot).
wait_for 60 sh -c "! kill -0 $QPID 2>/dev/null" || { say "nested qemu still running: killed"; kill -9 "$QPID"; }
wait "$QPID" 2>/dev/null
say "nested-exit $(tr -dc '0-9' < $N/ret 2>/dev/null)"
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
	GSO_VM_TIMEOUT=$HOSTVM_TIMEOUT VM_KERNEL=$kernel VM_EXTRA_INITRD=$hostvm_cpio \
		VM_APPEND="loglevel=4" vm_start "hostvm-$c" "$HOSTNS" "$script" -m 1024 -smp 2
	START_OF[$c]=$(date +%s)
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
	grep -q 'bytes=8388608 .*content=ok' <<< "$recv" ||
		check_err 1 "the receiver: '${recv:-nothing}'"
	console "$vm" | grep -qE '^NVQ: capture [1-9][0-9]* packets dropped by kernel' &&
		check_err 1 "a capture dropped packets"
	# Every byte on both captures: the stream crossed the egress port.
	{ [ "$tapbytes" = 8388608 ] && [ "$nicbytes" = 8388608 ]; } ||
		check_err 1 "payload bytes captured: tap ${tapbytes:-none}, vnic0 ${nicbytes:-none} (want 8388608 each)"
	[ "${tapmax:-0}" -gt 14480 ] 2>/dev/null ||
		check_err 1 "no GSO packet on the tap (largest payload ${tapmax:-none}): nothing to prove"
	[ "${tapmax:-0}" -le 64000 ] 2>/dev/null ||
		check_err 1 "a tap payload of $tapmax is over the 64000-byte limit"
	[ "$seg" = 0 ] || check_err 1 "bytes segmented in software: ${seg:-no histogram}"
	if [ "$RET" -ne 0 ]; then printf '%s\n' "$hist" | sed 's/^/      /'; fi
	log_test "vhost qemu $c: 8 MiB at 64000/64 intact, 0 bytes segmented in software (largest ${tapmax:-?})"

	follow=$(nvq "$vm" follow-ms)
	{ [ -n "$follow" ] && [ "$follow" != timeout ]; } ||
		check_err $? "the guest did not report 32000/32 within $NESTED_FOLLOW_S s"
	[ "$RET" -eq 0 ] || fail_tail "$vm"
	log_test "vhost qemu $c: guest follows 64000/64 -> 32000/32 (${follow:-?} ms)"

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
