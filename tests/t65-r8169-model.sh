#!/usr/bin/env bash
# The emulated Realtek NIC (qemu-test-patches/: the rtl8168 device, chips
# RTL8125B and RTL8168evl) under Linux's own r8169 driver, and the QEMU
# fixes it relies on.
#
# 1. qtests (QEMU's own harness): tests/qtest/rtl8168-test (a good frame
#    reaches the backend; a TSO chain whose last descriptor is <= 6 bytes
#    moves the RTL8168evl violation counter; zero-length descriptors,
#    chains without FirstFrag/LastFrag and absurd MSS values are dropped
#    with TxErr and QEMU stays up) and e1000e's tso_flags case (net_tx_pkt
#    keeps PSH/FIN on the last TSO segment and CWR on the first only).
# 2. Per chip: the project's kernel boots with the device on a tap bridged
#    to a wire peer; the r8169 driver probes it (right chip name, XID), the
#    link comes up, the limits it sets are 64000/64, ping and 8 MiB TCP
#    streams over IPv4 and IPv6 cross it with the driver's TSO in use
#    (x-tx-lso > 0), and each segment captured on the wire fits the TSO
#    packet the driver took (the guest's capture on eth0; wire_check,
#    tests/harness/wire.sh): PSH/FIN on its last segment only, CWR on its
#    first only, MTU-sized, correct IPv4 and TCP checksums (tcpdump -vv),
#    sequence and IPv4 IDs running on, each stream's FIN, neither capture
#    dropping a packet.  The model's violation counter must stay 0.
#
#   tests/t65-r8169-model.sh [--tree DIR]
#
# --tree DIR: QEMU from a developer tree (scripts/devtree.sh qemu-test DIR)
# instead of qemu-patches/ + qemu-test-patches/.  GSO_KERNEL picks another
# kernel (tests/harness/vm.sh); T65_EXTRA_INITRD, an archive appended to the
# guests' initramfs, brings that kernel's modules (/etc/gso-modules).
#
# Runs in about 4 minutes under TCG (two guests, one qtest binary).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/vm.sh
. "$GSO_TOP/tests/harness/vm.sh"
# shellcheck source=tests/harness/topo.sh
. "$GSO_TOP/tests/harness/topo.sh"
# shellcheck source=tests/harness/extra-initrd.sh
. "$GSO_TOP/tests/harness/extra-initrd.sh"
# shellcheck source=tests/harness/wire.sh
. "$GSO_TOP/tests/harness/wire.sh"

require_command tcpdump
BYTES=$((8 << 20))
PORT4=5201 PORT6=5202 PORTF=5301 PORTGO=5999
FWD_NET=203.0.113.0/28
log_dir=$TEST_LOG_DIR/t65
mkdir -p "$log_dir"
tree_args "$@"

# --- 1. qtests ---------------------------------------------------------------
if ! GSO_QEMU=$("$GSO_TOP/scripts/build-qemu.sh" "${build_args[@]}" -- tests/qtest/rtl8168-test \
		tests/qtest/qos-test 2> "$log_dir/build.err"); then
	cat "$log_dir/build.err" >&2
	log_test "r8169 model: build QEMU with the model and its qtests" FAIL
	tests_exit
fi
export GSO_QEMU
builddir=$(dirname "$GSO_QEMU")
log_test "r8169 model: build QEMU with the model and its qtests"

# run_qtest NAME BINARY [ARGS...]: one TEST line per TAP case.
run_qtest() {
	local name=$1 bin=$2 tap=$log_dir/$1.tap rc=0
	shift 2
	QTEST_QEMU_BINARY=$GSO_QEMU timeout 300 "$bin" --tap -k "$@" > "$tap" 2>&1 || rc=$?
	if ! grep -q '^ok ' "$tap"; then
		log_test "r8169 model: qtest $name" FAIL "no case ran (exit $rc, $tap)"
		return
	fi
	while read -r res case; do
		if [ "$res" = ok ]; then
			log_test "r8169 model: qtest $case"
		else
			log_test "r8169 model: qtest $case" FAIL "see $tap"
		fi
	done < <(sed -n 's/^\(ok\|not ok\) [0-9]* \([^ ]*\).*/\1 \2/p' "$tap")
	[ "$rc" -eq 0 ] || log_test "r8169 model: qtest $name exit status" FAIL "exit $rc"
}
run_qtest rtl8168 "$builddir/tests/qtest/rtl8168-test"
run_qtest e1000e-tso "$builddir/tests/qtest/qos-test" \
	-p /x86_64/pc/i440FX-pcihost/pci-bus-pc/pci-bus/e1000e/e1000e-tests/tso_flags

# --- 2. the real driver --------------------------------------------------------
vm_init

# qom_get VM PROPERTY: a property of the guest's NIC (id nic).
qom_get() {
	{ vm_qmp "$1" "{\"execute\":\"qom-get\",\"arguments\":{\"path\":\"/machine/peripheral/nic\",\"property\":\"$2\"}}" |
		sed -n 's/.*"return": *\([0-9]*\).*/\1/p' | tail -n 1; } || true
}

# guest_go: the guest waits (nc -l) while the host reads the counters.
guest_go() {
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		ip netns exec "$PEER_NS" timeout 5 bash -c \
			"echo go > /dev/tcp/$GUEST_IP4/$PORTGO" 2>/dev/null && return 0
		sleep 1
	done
	return 1
}

run_chip() {
	local chip=$1 name want_name want_tso con pcap
	case $chip in
	rtl8125b)   want_name='RTL8125B, .*XID 641' want_tso=on ;;
	# The driver leaves SG and TSO off on this chip (hw_features only).
	rtl8168evl) want_name='RTL8168evl/8111evl, .*XID 2c8' want_tso=off ;;
	esac
	name=r8169-$chip
	# The model's netdev is a tap without vnet header (vnet_hdr=off below):
	# it carries wire frames, bridged to the wire peer where they are
	# captured whole (tcpdump checks each checksum).
	topo_tier1 e1000e
	ip netns exec "$PEER_NS" ethtool -K wire0 gro off >/dev/null 2>&1 || true
	pcap=$log_dir/$name.pcap
	# The guest's side of the three streams only: the split-pieces case's
	# tap-blast frames (from the peer's address to port 5201, some 200 MB
	# in 2 s) are no part of the check, and a capture that kept them
	# dropped thousands of frames (wire_check fails on any drop).
	ip netns exec "$PEER_NS" timeout 400 tcpdump -i wire0 -s 0 -U -w "$pcap" \
		"tcp and (src host $GUEST_IP4 or src host $GUEST_IP6 or src net $FWD_NET) and" \
		"(dst port $PORT4 or dst port $PORT6 or dst port $PORTF)" \
		2> "$log_dir/$name.tcpdump.err" &
	local tcpdump_pid=$!
	defer "kill $tcpdump_pid 2>/dev/null"
	slowwait 10 grep -q 'listening on' "$log_dir/$name.tcpdump.err" || true
	ip netns exec "$PEER_NS" "$GSO_TOP/tools/build/gso-stream" recv -l "$PEER_IP4" \
		--expect $BYTES --timeout 300 $PORT4 > "$log_dir/$name.recv4.log" 2>&1 &
	local r4=$!
	ip netns exec "$PEER_NS" "$GSO_TOP/tools/build/gso-stream" recv -6 -l "$PEER_IP6" \
		--expect $BYTES --timeout 300 $PORT6 > "$log_dir/$name.recv6.log" 2>&1 &
	local r6=$!
	ip netns exec "$PEER_NS" "$GSO_TOP/tools/build/gso-stream" recv -l "$PEER_IP4" \
		--expect $BYTES --timeout 400 $PORTF > "$log_dir/$name.recvf.log" 2>&1 &
	local rf=$!
	defer "kill $r4 $r6 $rf 2>/dev/null"
	ip -n "$PEER_NS" route add "$FWD_NET" via "$GUEST_IP4"

	local script=$log_dir/$name.guest.sh
	cat > "$script" <<GUEST
. /etc/gso-guest.sh
echo "DRIVER: \$(basename \$(readlink /sys/class/net/eth0/device/driver))"
gcheck link_up net_up $GUEST_IP4 $GUEST_IP6 || exit 1
dmesg | grep -E 'r8169|Link is' | sed 's/^/DMESG: /'
ethtool -k eth0 | grep -E '^(tcp-segmentation-offload|tx-checksumming|scatter-gather):' |
	sed 's/^/DEFAULT: /'
# SG and TSO on (the RTL8168evl's driver leaves them off)
ethtool -K eth0 sg on tso on
echo "LIMITS: \$(gso-linkinfo eth0)"
ethtool -k eth0 | grep -E '^(tcp-segmentation-offload|tx-checksumming|scatter-gather):'
# IPv4 TSO on the RTL8168evl only without TCP options (rtl8168evl_fix_tso()).
echo 0 > /proc/sys/net/ipv4/tcp_timestamps
gcheck ping4 ping_until $PEER_IP4 || exit 1
# The TSO packets the driver takes (eth0's capture sees them after the
# stack's software GSO), for the check of each wire segment; to the host
# through the gso.pcap port once the streams are done.
/opt/gso/bin/tcpdump -Z root -i eth0 -n -s 200 -B 8192 --immediate-mode -w /tmp/tso.pcap \
	"tcp and (dst port $PORT4 or dst port $PORT6 or dst port $PORTF)" 2> /tmp/tso.log &
TSOCAP=\$!
wait_for 60 grep -q 'listening on' /tmp/tso.log || { sed 's/^/TSOCAP: /' /tmp/tso.log; exit 1; }
gcheck stream4 gso-stream send $PEER_IP4 $PORT4 $BYTES || exit 1
gcheck stream6 gso-stream send -6 $PEER_IP6 $PORT6 $BYTES || exit 1
echo "STREAMS-DONE"
# the host reads the model's counters, then lets the guest go on
timeout 120 nc -l -p $PORTGO > /dev/null
# The host path: a sender namespace's 64 KiB TSO packets (TCP timestamps
# on) are forwarded out of eth0, whose driver takes at most 64000 bytes /
# 64 segments: the host kernel segments or splits them (kernel-split-patches/).
IP=/opt/gso/bin/ip
unshare -n sleep 900 > /dev/null 2>&1 &
SPID=\$!
wait_for 5 sh -c "[ \"\\\$(readlink /proc/\$SPID/ns/net)\" != \"\\\$(readlink /proc/self/ns/net)\" ]" || exit 1
S="nsenter -t \$SPID -n"
\$IP link add fs0 type veth peer name fr0 || exit 1
\$IP link set fs0 netns \$SPID || exit 1
\$S \$IP link set lo up
\$S \$IP addr add 203.0.113.1/28 dev fs0
\$S \$IP link set fs0 up
\$S \$IP route add default via 203.0.113.2
\$S sh -c 'echo 64 > /proc/sys/net/ipv4/tcp_min_tso_segs; echo 1 > /proc/sys/net/ipv4/tcp_timestamps'
\$S ethtool -K fs0 tso on gso on > /dev/null
\$IP addr add 203.0.113.2/28 dev fr0
\$IP link set fr0 up
ethtool -K fr0 gro off > /dev/null
echo 1 > /proc/sys/net/ipv4/ip_forward
gcheck streamf \$S gso-stream send $PEER_IP4 $PORTF $BYTES --timeout 300 || exit 1
sleep 1
kill -INT \$TSOCAP
wait \$TSOCAP
sed 's/^/TSOCAP: /' /tmp/tso.log
for p in /sys/class/virtio-ports/*; do
	[ "\$(cat \$p/name)" = gso.pcap ] && cat /tmp/tso.pcap > /dev/\${p##*/}
done
echo "FWD-DONE"
timeout 120 nc -l -p $PORTGO > /dev/null
# The RTL8168evl erratum on split pieces: a tap's GSO frame (no TCP
# options) of 57 x 1130 payload bytes, bridged to eth0 at gso_max_size
# 33000.  tun lays the payload out in 32 KiB (or 4 KiB) fragments, so the
# frame's last fragment is 31642 bytes and r8169 takes it for TSO; cut
# into 29 + 28 segments, the first piece ends 2 bytes into its last
# fragment (29 x 1130 = 32770): rtl8168evl_fix_tso() must see that piece.
\$IP link add br9 type bridge stp_state 0 forward_delay 0 || exit 1
\$IP addr flush dev eth0
\$IP link set eth0 gso_max_size 33000 master br9 || exit 1
\$IP link set br9 up
\$IP addr add $GUEST_IP4/24 dev br9
# GSO packets split for a device's limits: /proc/net/softnet_stat's
# column 16 (the split series v3), summed over the CPUs.
gsosplit() {
	local n=0 c
	while read -r c c c c c c c c c c c c c c c c rest; do
		[ -n "\$c" ] && n=\$((n + 0x\$c))
	done < /proc/net/softnet_stat
	echo "\$n"
}
echo "GSOSPLIT-BEFORE: \$(gsosplit)"
gcheck blast /opt/gso/bin/tap-blast tap9 br9 2 64410 1130 || exit 1
echo "GSOSPLIT-AFTER: \$(gsosplit)"
echo "BLAST-DONE"
timeout 120 nc -l -p $PORTGO > /dev/null
GUEST
	VM_EXTRA_INITRD=$extra vm_start "$name" "$HOST_NS" "$script" \
		-netdev "tap,id=n0,ifname=tap0,script=no,downscript=no,vhost=off,vnet_hdr=off" \
		-device "rtl8168,id=nic,netdev=n0,chip=$chip,mac=$GUEST_MAC" \
		-chardev "file,id=tsopcap,path=$log_dir/$name.tso.pcap" \
		-device virtserialport,bus=vser0.0,chardev=tsopcap,name=gso.pcap
	con=$TEST_LOG_DIR/$name.console.log
	local viol='' lso='' fviol='' rc=0 r
	declare -A rule=()
	if vm_console_wait "$name" 'STREAMS-DONE|GSO-GUEST-EXIT' 360 &&
		! grep -q GSO-GUEST-EXIT "$con"; then
		viol=$(qom_get "$name" x-violations)
		lso=$(qom_get "$name" x-tx-lso)
		guest_go || echo "    the guest did not take the go"
	fi
	if vm_console_wait "$name" 'FWD-DONE|GSO-GUEST-EXIT' 400 &&
		! grep -q GSO-GUEST-EXIT "$con"; then
		fviol=$(qom_get "$name" x-violations)
		for r in tcp-options last-frag ipv4-options total-length segments header-offset; do
			rule[$r]=$(qom_get "$name" "x-violations-$r")
		done
		guest_go || echo "    the guest did not take the go"
	fi
	local bviol='' blso='' blast
	if vm_console_wait "$name" 'BLAST-DONE|GSO-GUEST-EXIT' 200 &&
		! grep -q GSO-GUEST-EXIT "$con"; then
		bviol=$(qom_get "$name" x-violations-last-frag)
		blso=$(qom_get "$name" x-tx-lso)
		guest_go || echo "    the guest did not take the go"
	fi
	vm_wait "$name" || rc=$?

	grep -qE "DMESG: .*$want_name" "$con" ||
		check_err $? "the r8169 driver did not report '$want_name' ($con)"
	grep -q 'DRIVER: r8169' "$con" ||
		check_err $? "eth0 is not bound to r8169"
	grep -q "DEFAULT: tcp-segmentation-offload: $want_tso" "$con" ||
		check_err $? "TSO is not $want_tso by default: $(grep -a 'DEFAULT: tcp-seg' "$con" | tr -d '\r')"
	log_test "r8169 model $chip: the r8169 driver probes it (TSO $want_tso by default)"
	grep -q 'GUEST-CHECK: link_up ok' "$con" ||
		check_err $? "link did not come up"
	grep -qE 'DMESG: .*Link is Up - (1|2\.5)Gbps/Full' "$con" ||
		check_err $? "no 'Link is Up' from the driver"
	log_test "r8169 model $chip: link up"
	grep -q 'LIMITS: .*tso_max_size 64000 tso_max_segs 64' "$con" ||
		check_err $? "limits set by the driver: $(grep -a 'LIMITS:' "$con" | tr -d '\r')"
	log_test "r8169 model $chip: the driver sets tso_max 64000/64"
	for c in ping4 stream4 stream6; do
		grep -q "GUEST-CHECK: $c ok" "$con" ||
			check_err $? "guest check $c did not pass"
	done
	wait "$r4" ||
		check_err $? "IPv4 receiver: $(cat "$log_dir/$name.recv4.log")"
	wait "$r6" ||
		check_err $? "IPv6 receiver: $(cat "$log_dir/$name.recv6.log")"
	{ grep -q 'content=ok' "$log_dir/$name.recv4.log" &&
		grep -q 'content=ok' "$log_dir/$name.recv6.log"; } ||
		check_err 1 "stream content not verified"
	check_eq "guest exit code" "$rc" 0
	log_test "r8169 model $chip: ping and 8 MiB TCP streams over IPv4 and IPv6"
	{ [ -n "$lso" ] && [ "$lso" -gt 0 ]; } ||
		check_err 1 "the driver sent no LSO descriptor chain (x-tx-lso '$lso')"
	log_test "r8169 model $chip: the driver's TSO was used (x-tx-lso $lso)"
	check_eq "x-violations" "$viol" 0
	log_test "r8169 model $chip: no hardware-constraint violation (guest's own streams)"

	# The host path (forwarded 64 KiB packets out of the r8169 egress).
	grep -q 'GUEST-CHECK: streamf ok' "$con" ||
		check_err $? "forwarded stream failed"
	wait "$rf" ||
		check_err $? "forwarded stream's receiver: $(cat "$log_dir/$name.recvf.log")"
	log_test "r8169 model $chip: host path: forwarded 8 MiB stream crosses the r8169 egress"
	local by=''
	for r in "${!rule[@]}"; do by+=" $r=${rule[$r]}"; done
	echo "    $chip host path: violations $(( ${fviol:-0} - ${viol:-0} )) (by rule:$by)"
	{ [ -n "$fviol" ] && [ "$fviol" = "${viol:-x}" ]; } ||
		check_err 1 "the host path gave the NIC chains it must not take: x-violations $viol -> $fviol (by rule:$by)"
	log_test "r8169 model $chip: host path: no hardware-constraint violation"

	# The erratum case (split pieces of tap frames, see the guest script).
	blast=$(grep -a 'tap-blast:' "$con" | tr -d '\r' | tail -n 1)
	echo "    $chip split pieces: $blast; $(grep -a 'GSOSPLIT-' "$con" | tr -d '\r' | tr '\n' ' ')"
	echo "    $chip split pieces: x-violations-last-frag ${rule[last-frag]:-?} -> $bviol, x-tx-lso -> $blso"
	grep -q 'GUEST-CHECK: blast ok' "$con" ||
		check_err 1 "tap-blast failed"
	{ [ -n "$bviol" ] && [ "$bviol" = "${rule[last-frag]:-x}" ]; } ||
		check_err 1 "pieces the driver must not give the chip as TSO: x-violations-last-frag ${rule[last-frag]:-?} -> $bviol"
	log_test "r8169 model $chip: split pieces: no last-fragment violation"

	# The wire: each data segment of the three streams (the guest's IPv4
	# and IPv6 ones, the forwarded one) against the TSO packet the driver
	# took that holds it (wire_check, tests/harness/wire.sh): PSH and FIN
	# on its last segment only, CWR on its first only, at most MTU-sized,
	# checksums right, each flow's sequence contiguous and IPv4 IDs one
	# more per segment (the model gives each segment the next ID), each
	# stream ended by a FIN; neither capture dropped a frame.  The guest's
	# frames only: the peer's own carry partial checksums (offloaded, not
	# yet filled in where tcpdump sees them).
	pcap_stop_settled "$pcap" "$tcpdump_pid"
	wire_tso "$log_dir/$name.tso.pcap" > "$log_dir/$name.tso.txt" || true
	tr -d '\r' < "$con" | sed -n 's/^TSOCAP: //p' > "$log_dir/$name.tso.log"
	wire_check "$name" "$log_dir/$name.tso.txt" "$pcap" \
		"src host $GUEST_IP4 or src host $GUEST_IP6 or src net $FWD_NET" 3 \
		"wire=$log_dir/$name.tcpdump.err" "guest's eth0 (the TSO packets)=$log_dir/$name.tso.log" ||
		check_err 1 "${WIRE_BAD//$'\n'/; }"
	echo "    $chip wire: $WIRE"
	log_test "r8169 model $chip: wire segments ($WIRE_SEGS of $WIRE_TSO TSO packets): within the driver's TSO packets, PSH/FIN last, CWR first, MTU, checksums, sequence, IPv4 ID, FIN, no capture drop"
}

# iproute2's ip (busybox's has no netns moves) for the host-path case.
extra=$log_dir/extra.cpio.gz
cc -O2 -Wall -Wextra -Werror -std=c11 -D_GNU_SOURCE -I"$GSO_TOP/tools" \
	-o "$log_dir/tap-blast" "$GSO_TOP/tools/test/tap-blast.c" "$GSO_TOP/tools/lib/fail.c"
extra_initrd "$extra" "$(command -v ip):/opt/gso/bin/ip" \
	"$log_dir/tap-blast:/opt/gso/bin/tap-blast" "$(command -v tcpdump):/opt/gso/bin/tcpdump"
if [ -n "${T65_EXTRA_INITRD:-}" ]; then
	cat "$T65_EXTRA_INITRD" >> "$extra"
fi

run_chip rtl8125b
run_chip rtl8168evl

tests_exit
