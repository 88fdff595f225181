#!/usr/bin/env bash
# The brief's acceptance scenarios through the tier-1 harness, each with
# captures on the tap and on the egress port and a content-checked stream:
#   S1  r8169 profile, feature off then on in the same run: off reproduces
#       seed 000 (egress dominated by MSS frames, bytes segmented in
#       software), on leaves 0 bytes segmented and identical histograms.
#   S2  e1000e profile: nothing changes, nothing is segmented.
#   S9  IPv6; and a path whose segment limit binds before its size limit
#       (custom:65536/16): the guest honours the segment limit (tier 1:
#       its frames at the tap; tier 2: on the 7.2 kernel as host, which
#       enforces the segment limit, nothing is segmented, and the same
#       path with the feature off is segmented in software: the control).
# S8 (hostile values) is in t20-negotiation.sh.
set -euo pipefail
# shellcheck source=tests/harness/vmtest.sh
. "$(dirname "$0")/harness/vmtest.sh"
vm_init

# T30_SCENARIOS: which parts to run (default: S1 S2 S9).  S9T2, the tier-2
# segment case below, is opt-in for now:
#   T30_SCENARIOS="S1 S2 S9 S9T2" tests/run.sh tests/t30-scenarios.sh
# Its two nested TCG guests did not reach their streams within the host
# VM's bounds on the shared, loaded 2-core machine (issue 15: open).
SCENARIOS=" ${T30_SCENARIOS:-S1 S2 S9} "
want() { [[ $SCENARIOS == *" $1 "* ]]; }

BYTES=$((16 << 20))
ON_R8169="host_gso_max_size=64000,host_gso_max_segs=64"

# check_large_gso NAME: the tap carried real GSO frames, so that "0 bytes
# segmented in software" is a statement about large frames: the largest
# payload is above 32 MSS, and frames above 32 MSS carry at least a tenth
# of the tap's payload bytes (under a loaded TCG host the share swings:
# 34 % was seen in S2-on, 93 % in S1-on, 98 % in S2-off).  A guest that
# sent only small frames, e.g. with TSO off, would pass every other check
# of S1-on and S2 vacuously.
check_large_gso() {
	local mss max total large
	mss=$(hist_q "$1" '.mss')
	max=$(hist_q "$1" '.files[0].max_payload')
	total=$(hist_q "$1" '.files[0].payload_bytes')
	large=$(hist_q "$1" ".mss as \$m | [.histogram[] | select(.payload_size > 32 * \$m) |
		.payload_size * .counts[0]] | add // 0")
	LARGE_MAX=$max
	[ "$max" -gt $((32 * mss)) ] ||
		check_err 1 "largest tap payload $max is not above 32 MSS ($((32 * mss))): no large GSO frames"
	[ $((10 * large)) -ge "$total" ] ||
		check_err 1 "frames above 32 MSS carry $large of $total tap payload bytes (want at least a tenth)"
}

# S1 -----------------------------------------------------------------------
if want S1; then
	topo_tier1 r8169
	bulk_run s1-off $BYTES 4 ""
	bulk_hist s1-off
	check_eq "stream verified" "$BULK_OK" 1
	check_eq "guest tso_max_size (feature off)" "$(link_field "$BULK_GUEST_LINK" tso_max_size)" 65536
	over=$(hist_oversize_bytes s1-off 64000)
	sw=$(hist_q s1-off '.segmented_in_software.bytes')
	share=$(hist_mss_frame_share s1-off 1)
	[ "$over" -gt 0 ] ||
		check_err 1 "the guest sent no frame over the 64000-byte limit: nothing to reproduce"
	awk -v s="$sw" -v o="$over" 'BEGIN { exit !(s >= 0.9 * o) }' ||
		check_err 1 "only $sw of the $over oversize bytes were segmented in software"
	# README and docs/results.md quote make demo's 99.1 % (seed 000:
	# 19101 of 20000 = 95.5 %): this is the check behind that figure,
	# with its tolerance, at least 90 % of the NIC's frames one MSS.
	share_pct=$(awk -v s="$share" 'BEGIN { printf "%.1f", s * 100 }')
	awk -v s="$share" 'BEGIN { exit !(s >= 0.9) }' ||
		check_err 1 "only $share_pct % of NIC frames carry one MSS (want >= 90 %, seed 000: 95.5 %)"
	log_test "S1 r8169, feature off: seed 000 reproduced ($sw bytes segmented in software, $share_pct % of NIC frames one MSS, want >= 90 %)"

	bulk_run s1-on $BYTES 4 "$ON_R8169"
	bulk_hist s1-on
	check_eq "stream verified" "$BULK_OK" 1
	check_eq "guest tso_max_size" "$(link_field "$BULK_GUEST_LINK" tso_max_size)" 64000
	check_eq "guest tso_max_segs" "$(link_field "$BULK_GUEST_LINK" tso_max_segs)" 64
	check_eq "bytes segmented in software" "$(hist_q s1-on '.segmented_in_software.bytes')" 0
	check_eq "tap bytes in frames over the limit" "$(hist_oversize_bytes s1-on 64000)" 0
	hist_identical s1-on ||
		check_err $? "tap and egress histograms differ"
	check_eq "egress payload bytes equal tap payload bytes" \
		"$(hist_q s1-on '.files[1].payload_bytes')" "$(hist_q s1-on '.files[0].payload_bytes')"
	check_large_gso s1-on
	log_test "S1 r8169, feature on: 64000/64 applied, large frames (max $LARGE_MAX), 0 bytes segmented in software"
	defer_cleanup
fi

# S2 -----------------------------------------------------------------------
if want S2; then
	topo_tier1 e1000e
	for mode in off on; do
		props=""
		[ $mode = on ] && props="host_gso_max_size=65536,host_gso_max_segs=65535"
		bulk_run "s2-$mode" $BYTES 4 "$props"
		bulk_hist "s2-$mode"
		check_eq "stream verified" "$BULK_OK" 1
		check_eq "guest tso_max_size" "$(link_field "$BULK_GUEST_LINK" tso_max_size)" 65536
		check_eq "guest tso_max_segs" "$(link_field "$BULK_GUEST_LINK" tso_max_segs)" 65535
		check_eq "bytes segmented in software" "$(hist_q "s2-$mode" '.segmented_in_software.bytes')" 0
		hist_identical "s2-$mode" ||
			check_err $? "tap and egress histograms differ"
		check_large_gso "s2-$mode"
		log_test "S2 e1000e, feature $mode: defaults kept, large frames (max $LARGE_MAX), nothing segmented"
	done
	defer_cleanup
fi

# S9 -----------------------------------------------------------------------
if want S9; then
	topo_tier1 r8169
	bulk_run s9-v6 $BYTES 6 "$ON_R8169"
	bulk_hist s9-v6
	check_eq "stream verified" "$BULK_OK" 1
	check_eq "bytes segmented in software" "$(hist_q s9-v6 '.segmented_in_software.bytes')" 0
	check_eq "tap bytes in frames over the limit" "$(hist_oversize_bytes s9-v6 64000 86)" 0
	hist_identical s9-v6 ||
		check_err $? "tap and egress histograms differ"
	[ "$(hist_q s9-v6 '.files[0].max_payload')" -gt 30000 ] ||
		check_err 1 "IPv6: no large GSO frames on the tap"
	log_test "S9 IPv6 over r8169, feature on: large frames, 0 bytes segmented"
	defer_cleanup

	topo_tier1 custom:65536/16
	bulk_run s9-segs $BYTES 4 "host_gso_max_segs=16"
	bulk_hist s9-segs
	check_eq "stream verified" "$BULK_OK" 1
	check_eq "guest tso_max_segs" "$(link_field "$BULK_GUEST_LINK" tso_max_segs)" 16
	check_eq "guest tso_max_size" "$(link_field "$BULK_GUEST_LINK" tso_max_size)" 65536
	mss=$(hist_q s9-segs '.mss')
	tap_max=$(hist_q s9-segs '.files[0].max_payload')
	{ [ "$tap_max" -le $((16 * mss)) ] && [ "$tap_max" -gt $((8 * mss)) ]; } ||
		check_err 1 "largest tap frame $tap_max bytes: want at most 16 segments of $mss (and GSO in use)"
	check_eq "bytes segmented in software" "$(hist_q s9-segs '.segmented_in_software.bytes')" 0
	log_test "S9 segment limit binds first (16 segs): guest frames <= 16 x MSS ($tap_max)"
	defer_cleanup
fi

# S9, tier 2 ---------------------------------------------------------------------
# The machine's own kernel does not enforce an egress port's gso_max_segs on
# tap traffic (FACTS.md), so above S9 can only check the guest's frames at
# the tap.  Here the project's 7.2 kernel, which does, is the host: a host
# VM runs two nested guests at once under the patched QEMU, each behind its
# own tap -> bridge -> veth at 65536 bytes / 16 segments -> peer namespace:
#   on   host_gso_max_segs=16: frames of at most 16 MSS, 0 bytes segmented
#   off  no limits: 45-MSS frames, which the host segments in software (the
#        control: the same topology fails the "on" check without the feature)
# Each sends 8 MiB (gso-stream, content-checked) with tcpdump on its tap and
# veth; the host VM prints gso-hist's JSON on its console ("S9T2-HIST-c:").
S9T2_BYTES=$((8 << 20))
S9T2_NESTED_S=${S9T2_NESTED_S:-300}

s9t2_hostvm_script() {
	printf 'BYTES=%s\nNESTED_S=%s\n' "$S9T2_BYTES" "$S9T2_NESTED_S"
	cat <<'HOSTVM'
IP=/opt/gso/bin/ip
QEMU=/usr/local/bin/qemu-system-x86_64
say() { echo "S9T2: $*"; }
ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
wait_for() {
	local end=$(( $(ms) + $1 * 1000 ))
	shift
	while ! "$@"; do
		[ "$(ms)" -lt "$end" ] || return 1
		sleep 0.25
	done
}
say "host $(uname -r), $(nproc) cpus"
[ -c /dev/net/tun ] || { say "error: no /dev/net/tun"; exit 1; }
cat > /tmp/nested.sh <<'NESTED'
. /etc/gso-guest.sh
i=0
while [ ! -e /sys/class/net/eth0 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
net_up 192.0.2.1 2001:db8::1 || echo "NESTED-ERROR: net_up"
ping_until 192.0.2.2 || echo "NESTED-ERROR: no ping"
echo "NESTED-LIMITS: $(gso_limits)"
gso-stream send 192.0.2.2 5201 $(cat /bytes) --timeout 200 > /tmp/send.log 2>&1
echo "NESTED-STREAM: rc=$? $(tail -n 1 /tmp/send.log)"
NESTED
for c in on off; do
	d=/tmp/$c
	mkdir -p $d/root
	cp /tmp/nested.sh $d/root/test.sh
	echo "$BYTES" > $d/root/bytes
	cp /opt/gso/guest.cpio.gz $d/initrd
	(cd $d/root && printf 'test.sh\nbytes\n' | cpio -o -H newc -R 0:0 2>/dev/null | gzip) >> $d/initrd
	# tap -> br -> veth (65536 bytes / 16 segments) -> peer namespace.
	$IP link add br-$c type bridge || exit 1
	$IP link set br-$c up
	$IP tuntap add dev tap-$c mode tap vnet_hdr || exit 1
	$IP link set tap-$c master br-$c up
	$IP link add e-$c type veth peer name p-$c || exit 1
	$IP link set e-$c gso_max_size 65536 gso_max_segs 16 master br-$c up || exit 1
	unshare -n sleep 900 &
	peer=$!
	wait_for 5 sh -c "[ \"\$(readlink /proc/$peer/ns/net)\" != \"\$(readlink /proc/self/ns/net)\" ]" ||
		{ say "error: peer namespace"; exit 1; }
	$IP link set p-$c netns $peer
	nsenter -t $peer -n $IP addr add 192.0.2.2/24 dev p-$c
	nsenter -t $peer -n $IP link set p-$c up
	nsenter -t $peer -n gso-stream recv -l 192.0.2.2 --expect "$BYTES" --timeout 280 5201 > $d/recv.log 2>&1 &
	for dev in tap-$c e-$c; do
		/opt/gso/bin/tcpdump -Z root -i $dev -n -s 200 -B 32768 --immediate-mode \
			-w $d/$dev.pcap "tcp and dst port 5201" 2> $d/$dev.tcpdump.log &
		echo $! >> $d/tcpdump.pids
		wait_for 10 grep -q 'listening on' $d/$dev.tcpdump.log || { say "error: tcpdump $dev"; exit 1; }
	done
	props=
	[ $c = on ] && props=,host_gso_max_segs=16
	timeout -s KILL "$NESTED_S" $QEMU -M pc -accel tcg -m 256 -smp 1 -nodefaults -no-user-config \
		-vga none -display none -no-reboot -L /usr/share/qemu -bios qboot.rom \
		-kernel /opt/gso/bzImage -initrd $d/initrd \
		-append "console=ttyS0 panic=-1 oops=panic loglevel=4 kunit.enable=0" \
		-chardev file,id=con,path=$d/console.log -serial chardev:con \
		-device virtio-serial-pci,id=vser0 \
		-chardev file,id=ret,path=$d/ret \
		-device virtserialport,bus=vser0.0,chardev=ret,name=gso.ret \
		-netdev tap,id=n0,ifname=tap-$c,script=no,downscript=no,vhost=off \
		-device virtio-net-pci,netdev=n0,romfile=$props > $d/qemu.log 2>&1 &
	echo $! > $d/qemu.pid
	say "$c: nested qemu started ($props)"
done
t0=$(ms)
for c in on off; do
	wait "$(cat /tmp/$c/qemu.pid)"
	say "$c: nested guest ended after $(( $(ms) - t0 )) ms, exit $(tr -dc '0-9' < /tmp/$c/ret 2>/dev/null)"
done
for c in on off; do
	d=/tmp/$c
	kill -INT $(cat $d/tcpdump.pids) 2>/dev/null
	for pid in $(cat $d/tcpdump.pids); do wait $pid 2>/dev/null; done
	grep -h 'dropped by kernel' $d/*.tcpdump.log | sed "s/^/S9T2: $c capture /"
	wait_for 20 grep -q 'status=' $d/recv.log
	say "$c recv $(grep 'role=recv' $d/recv.log | tail -n 1)"
	tr -d '\r' < $d/console.log | grep -E '^NESTED-' | sed "s/^/S9T2-$c: /"
	echo "S9T2-HIST-$c: $(gso-hist --json tap=$d/tap-$c.pcap nic=$d/e-$c.pcap | tr -d '\n')"
done
exit 0
HOSTVM
}

if want S9T2; then
	setup_ns S9T2_NS
	s9t2_cpio=$("$GSO_TOP/scripts/build-hostvm-initramfs.sh" --qemu "$GSO_QEMU" --kernel "$GSO_KERNEL") ||
		check_err 1 "scripts/build-hostvm-initramfs.sh failed"
	s9t2_script=$TEST_LOG_DIR/s9-tier2.hostvm.sh
	s9t2_hostvm_script > "$s9t2_script"
	rc=0
	GSO_VM_TIMEOUT=$((S9T2_NESTED_S + 120)) VM_EXTRA_INITRD=$s9t2_cpio VM_APPEND="loglevel=4 kunit.enable=0" \
		vm_run s9-tier2 "$S9T2_NS" "$s9t2_script" -m 1024 -smp 2 || rc=$?
	s9t2_con() { tr -d '\r' < "$TEST_LOG_DIR/s9-tier2.console.log" 2>/dev/null || true; }
	check_eq "host VM exit code" "$rc" 0
	s9t2_con | grep -q '^S9T2: error' && check_err 1 "$(s9t2_con | grep '^S9T2: error')"
	log_test "S9 tier 2: the 7.2 host VM runs both nested guests ($GSO_ACCEL, $(s9t2_con |
		sed -n 's/^S9T2: on: nested guest ended after \([0-9]*\) ms.*/\1/p') ms)"

	for c in on off; do
		hist=$TEST_LOG_DIR/s9-tier2-$c.hist.json
		s9t2_con | sed -n "s/^S9T2-HIST-$c: //p" > "$hist"
		{ [ -s "$hist" ] && jq -e .mss "$hist" >/dev/null 2>&1; } || echo '{"mss":0}' > "$hist"
		s9t2_con | grep -q "^S9T2-$c: NESTED-STREAM: rc=0" ||
			check_err 1 "$c: the nested guest's sender: $(s9t2_con | grep "^S9T2-$c: NESTED-" | tail -n 2)"
		s9t2_con | grep -q "^S9T2: $c recv .*bytes=$S9T2_BYTES .*content=ok" ||
			check_err 1 "$c: the receiver: $(s9t2_con | grep "^S9T2: $c recv")"
		s9t2_con | grep -q "^S9T2: $c capture [1-9]" && check_err 1 "$c: a capture dropped packets"
		check_eq "$c: payload bytes on the tap" "$(jq -r '.files[0].payload_bytes' "$hist")" "$S9T2_BYTES"
		check_eq "$c: payload bytes on the veth" "$(jq -r '.files[1].payload_bytes' "$hist")" "$S9T2_BYTES"
	done
	mss=$(jq -r '.mss // 0' "$TEST_LOG_DIR/s9-tier2-on.hist.json")
	lim=$(s9t2_con | sed -n 's/^S9T2-on: NESTED-LIMITS: //p')
	tap_max=$(jq -r '.files[0].max_payload // 0' "$TEST_LOG_DIR/s9-tier2-on.hist.json")
	sw=$(jq -r '.segmented_in_software.bytes // "none"' "$TEST_LOG_DIR/s9-tier2-on.hist.json")
	check_eq "on: nested guest's tso_max_size tso_max_segs" "${lim% *}" "65536 16"
	{ [ "$tap_max" -le $((16 * mss)) ] && [ "$tap_max" -gt $((8 * mss)) ]; } ||
		check_err 1 "on: largest tap payload $tap_max: want GSO frames of at most 16 x $mss"
	check_eq "on: bytes segmented in software by the 7.2 host" "$sw" 0
	log_test "S9 tier 2, feature on: frames <= 16 MSS (max $tap_max), 0 bytes segmented by a host enforcing 16 segs"

	lim=$(s9t2_con | sed -n 's/^S9T2-off: NESTED-LIMITS: //p')
	tap_max=$(jq -r '.files[0].max_payload // 0' "$TEST_LOG_DIR/s9-tier2-off.hist.json")
	sw=$(jq -r '.segmented_in_software.bytes // 0' "$TEST_LOG_DIR/s9-tier2-off.hist.json")
	over=$(jq -r "[.histogram[] | select(.payload_size > 16 * $mss) | .payload_size * .counts[0]] | add // 0" \
		"$TEST_LOG_DIR/s9-tier2-off.hist.json")
	check_eq "off: nested guest's tso_max_size tso_max_segs" "${lim% *}" "65536 65535"
	[ "$tap_max" -gt $((16 * mss)) ] || check_err 1 "off: largest tap payload $tap_max: no frame over 16 segments, no control"
	awk -v s="$sw" -v o="$over" 'BEGIN { exit !(o > 0 && s >= 0.9 * o) }' ||
		check_err 1 "off: $sw of the $over bytes in frames over 16 segments were segmented in software"
	log_test "S9 tier 2, feature off (control): ${tap_max}-byte frames, $sw bytes segmented in software"
	defer_cleanup
fi

tests_exit
