# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Tier 2 for the host-side split (issue 14, kernel-split-patches/): a
# kernel booted as the host (a host VM) runs UNPATCHED guests nested in it
# under QEMU, each with two virtio-net NICs, one vhost=off and one vhost=on,
# and each NIC on a path of its own,
#
#   nested guest ethJ ~ tapK (vnet_hdr) ─ brK ─ sportK: netdevsim port at
#   r8169's limits (gso_max_size 64000, gso_max_segs 64), linked to
#   srcvK, a netdevsim port in a peer namespace where the receiver runs
#   (or, SPLITVM_EGRESS=r8169, sportK is the host VM's own emulated
#   RTL8125B under r8169, its wire on the outer host: splitvm_wire)
#
# so that the guest's 65160-byte TSO payloads must cross an egress port that
# takes nothing of 64000 bytes or more.  The guest does not know the limit
# (no VIRTIO_NET_F_GSO_LIMITS in its driver): what leaves sportK is the
# host kernel's doing.  The host VM captures each tap and each port (TCP
# headers, tcpdump) and reduces each pair with gso-hist.  Optionally the
# host VM also runs the forwarded case, no guest involved: a local TCP
# stream crosses a veth into a router namespace and is routed out of a
# netdevsim port at 64000/64, as 64 KiB TSO packets (variant "tso") and
# as MSS segments the router's GRO merges into 64 KiB packets (variant
# "gro").
#
# Guest kinds (GUESTS): "base" and "debian" are unpatched guests as above.
# "off" and "on" are PATCHED guests (the nested kernel of splitvm_initrd
# must then be the project's): the same two NICs with the feature off
# (host_gso_limits=off: today's virtio-net) or offered with no limit
# (host_gso_max_segs=65535) for the host daemon gso-limitsd, which the
# host VM then runs (--control none, the nested QEMUs' -qmp sockets): it
# gives each NIC its path's limits, the egress port's.  An "on" guest
# sends each stream once its NIC has 64000/64; then (its first path, the
# run-time change) the host VM lowers that path's port to 32000/32 with
# ip link, the guest must follow (NESTED-FOLLOW) and sends a second part,
# SPLITVM_BYTES2 to port 5202; that path's captures are reduced per part
# (pK: port 5201, pK-after: port 5202).  Used by demo.sh's rows off and on
# with DEMO_EGRESS=r8169.
#
# Used by tests/t63-split-unpatched-guest.sh and tests/demo.sh (its third
# row, and with DEMO_EGRESS=r8169 all three).  Source after tests/lib.sh, tests/harness/vm.sh and
# tests/harness/extra-initrd.sh.
#
# What the host VM prints on its console (read with splitvm_val and friends):
#   SPL: KEY VALUE        findings and timings (KEY p0-send, p0-recv,
#                         p0-tap-max, gsosplit-before, ...)
#   SPL-HIST-PATH: LINE   gso-hist's table of PATH (p0, p1, ..., fwd-tso,
#                         fwd-gro)
#   SPL-JSON-PATH: JSON   gso-hist --json of PATH
#   SPL-PLOT-PATH: LINE   gso-hist --plot-data of PATH
#   SPL-CON-G: LINE       the nested guest G's console (last lines)
#   SPL-LD: LINE          gso-limitsd's log (an "on" guest)

# shellcheck source=tests/harness/wire.sh
. "$GSO_TOP/tests/harness/wire.sh"

SPLITVM_BYTES=${SPLITVM_BYTES:-8388608}
# An "on" guest's second part, after the run-time change.
SPLITVM_BYTES2=${SPLITVM_BYTES2:-4194304}
# Nested QEMU start -> its end, in the host VM's clock, which under TCG on
# a loaded machine runs behind the wall clock.
SPLITVM_NESTED_S=${SPLITVM_NESTED_S:-600}
# Every guest path's egress port: nsim (a netdevsim port at r8169's limits,
# the receiver in the host VM) or r8169 (a NIC of the host VM's own per
# path: an emulated RTL8125B under the r8169 driver, from splitvm_wire's
# SPLITVM_NIC_ARGS in splitvm_start's QEMU ARGS; the receiver and the
# capture of the wire on the outer host).  The forwarded case's port is a
# netdevsim port either way.
SPLITVM_EGRESS=${SPLITVM_EGRESS:-nsim}

# splitvm_initrd NESTED_BZIMAGE [DEBIAN_DIR]: print the extra initramfs
# of the host VMs: scripts/build-hostvm-initramfs.sh with NESTED_BZIMAGE
# as the nested guests' kernel (the unpatched base for guests base; the
# project's for guests off and on), plus, with DEBIAN_DIR
# (scripts/fetch-distro-kernel.sh), Debian's kernel and its virtio modules
# at /opt/gso/debian/.
splitvm_initrd() {
	local unpatched=$1 debian=${2:-} base out
	base=$("$GSO_TOP/scripts/build-hostvm-initramfs.sh" --qemu "$GSO_QEMU" \
		--kernel "$unpatched") || return 1
	if [ -z "$debian" ]; then
		echo "$base"
		return 0
	fi
	out=$TEST_LOG_DIR/splitvm-hostvm.cpio.gz
	extra_initrd "$TEST_LOG_DIR/splitvm-debian.cpio.gz" \
		"$debian/vmlinuz:/opt/gso/debian/vmlinuz" \
		"$debian/modules.cpio.gz:/opt/gso/debian/modules.cpio.gz" || return 1
	# Concatenated newc archives are one initramfs to the kernel.
	cat "$base" "$TEST_LOG_DIR/splitvm-debian.cpio.gz" > "$out" || return 1
	echo "$out"
}

# splitvm_script GUESTS FWD: the host VM's /test.sh (busybox sh).  GUESTS:
# nested guests, "base" (the unpatched base kernel) and/or "debian", run
# one after the other (two nested TCG guests at once took several times as
# long on the shared 2-core machine), all within NESTED_S of the host VM's
# clock together; each gets paths 2i (vhost=off) and 2i+1 (vhost=on).
# FWD 1: the forwarded case as well, while the first guest boots.
splitvm_script() {
	printf 'GUESTS="%s"\nFWD=%s\nBYTES=%s\nBYTES2=%s\nNESTED_S=%s\nEGRESS=%s\n' "$1" "$2" \
		"$SPLITVM_BYTES" "$SPLITVM_BYTES2" "$SPLITVM_NESTED_S" "$SPLITVM_EGRESS"
	cat <<'HOSTVM'
IP=/opt/gso/bin/ip
QEMU=/usr/local/bin/qemu-system-x86_64
TCPDUMP=/opt/gso/bin/tcpdump
W=/tmp/split
# ms, wait_for SECONDS CMD...
. /etc/gso-guest.sh
say() { echo "SPL: $*"; }
fail() { say "error: $*"; exit 1; }
# gsosplit [PID]: GSO packets the net core split for a device's limits
# (/proc/net/softnet_stat column 16, summed over the CPUs: per host, not
# per namespace; PID is ignored), "none" on a kernel without the column.
gsosplit() {
	local n=0 seen= c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 rest
	while read -r c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 rest; do
		[ -n "$c16" ] || continue
		n=$((n + 0x$c16)) seen=1
	done < /proc/net/softnet_stat
	if [ -n "$seen" ]; then echo "$n"; else echo none; fi
}
# new_ns: a process in a new network namespace; prints its pid.
new_ns() {
	unshare -n sleep 900 > /dev/null 2>&1 &
	local pid=$!
	wait_for 5 sh -c "[ \"\$(readlink /proc/$pid/ns/net)\" != \"\$(readlink /proc/self/ns/net)\" ]" ||
		return 1
	echo "$pid"
}
# nsim_port ID NAME: a netdevsim device with one port, renamed NAME.
nsim_port() {
	echo "$1 1" > /sys/bus/netdevsim/new_device || return 1
	wait_for 5 sh -c "ls /sys/bus/netdevsim/devices/netdevsim$1/net/ 2>/dev/null | grep -q ." ||
		return 1
	$IP link set "$(ls /sys/bus/netdevsim/devices/netdevsim$1/net/ | head -n 1)" name "$2"
}
# nsim_pair ID PORT PORT_NS PEER PEER_NS: two netdevsim ports, PORT in the
# namespace of pid PORT_NS (0: this one), PEER in PEER_NS's, linked: what
# PORT transmits, PEER receives.  PORT at r8169's limits.
nsim_pair() {
	local a b
	nsim_port "$1" "$2" && nsim_port $(($1 + 1)) "$4" || return 1
	[ "$3" = 0 ] || $IP link set "$2" netns "$3" || return 1
	$IP link set "$4" netns "$5" || return 1
	if [ "$3" = 0 ]; then
		a=$($IP -o link show dev "$2" | cut -d: -f1)
	else
		a=$(nsenter -t "$3" -n $IP -o link show dev "$2" | cut -d: -f1)
	fi
	b=$(nsenter -t "$5" -n $IP -o link show dev "$4" | cut -d: -f1)
	if [ "$3" = 0 ]; then exec 7< /proc/self/ns/net; else exec 7< /proc/"$3"/ns/net; fi
	exec 8< /proc/"$5"/ns/net
	echo "7:$a 8:$b" > /sys/bus/netdevsim/link_device || { exec 7<&- 8<&-; return 1; }
	exec 7<&- 8<&-
	if [ "$3" = 0 ]; then
		$IP link set "$2" gso_max_size 64000 gso_max_segs 64 up
	else
		nsenter -t "$3" -n $IP link set "$2" gso_max_size 64000 gso_max_segs 64 up
	fi
}
# capture NAME DEV [PID]: tcpdump of the streams' data on DEV (in PID's
# namespace), as tier 1 takes it (tests/harness/bulk.sh).
capture() {
	local pre=
	[ -n "${3:-}" ] && pre="nsenter -t $3 -n"
	$pre $TCPDUMP -Z root -i "$2" -n -s 200 -B 32768 --immediate-mode \
		-w $W/"$1".pcap "tcp and dst portrange 5201-5302" 2> $W/"$1".tcpdump.log &
	echo $! > $W/"$1".cap
	# 60 s: a host VM that took 518 s to boot under a load of ~12 did
	# not see tcpdump start within 10 (demo, 2026-12-07).
	wait_for 60 grep -q 'listening on' $W/"$1".tcpdump.log ||
		fail "tcpdump on $2: $(cat $W/"$1".tcpdump.log)"
}
capture_stop() {
	kill -INT "$(cat $W/"$1".cap)" 2>/dev/null
	wait "$(cat $W/"$1".cap)" 2>/dev/null
	grep -h 'dropped by kernel' $W/"$1".tcpdump.log | sed "s/^/SPL: $1-capture /"
}
# hist PATH TAP NIC: gso-hist of a path, to the console.
hist() {
	gso-hist tap=$W/"$2".pcap nic=$W/"$3".pcap --top 8 \
		--plot-data $W/"$1".plot > $W/"$1".hist 2>&1
	sed "s/^/SPL-HIST-$1: /" $W/"$1".hist
	gso-hist --json tap=$W/"$2".pcap nic=$W/"$3".pcap | tr -d '\n' | sed "s/^/SPL-JSON-$1: /"
	echo
	sed "s/^/SPL-PLOT-$1: /" $W/"$1".plot
}

mkdir -p $W
say "host $(uname -r), $(nproc) cpus, guests $GUESTS"
say "host-up-ms $(ms)"
[ -c /dev/vhost-net ] || fail "no /dev/vhost-net"
PEER=$(new_ns) || fail "the peer namespace"

# --- one path per NIC: tapK in brK with sportK ---------------------------
k=0
for g in $GUESTS; do
	for v in off on; do
		$IP link add br$k type bridge || fail "bridge br$k"
		$IP link set br$k up
		if [ "$EGRESS" = r8169 ]; then
			# One of the host VM's own NICs (an emulated RTL8125B under
			# the r8169 driver, its own limits), found by the MAC
			# splitvm_wire gave path K's, is the path's port; the
			# receiver is the outer host's wire peer.
			mac=$(printf '52:54:00:12:34:%02x' $((0x56 + k))) dev=
			for d in /sys/class/net/*; do
				[ "$(cat "$d/address" 2>/dev/null)" = "$mac" ] && dev=${d##*/}
			done
			[ -n "$dev" ] || fail "no NIC with MAC $mac for the r8169 egress of path $k"
			$IP link set "$dev" down && $IP link set "$dev" name sport$k &&
				$IP link set sport$k master br$k up || fail "the r8169 egress of path $k"
			wait_for 10 sh -c "[ \"\$(cat /sys/class/net/sport$k/operstate)\" = up ]" ||
				fail "the r8169 egress's link on path $k"
		else
			nsim_pair $((630 + 2 * k)) sport$k 0 srcv$k "$PEER" || fail "netdevsim pair $k"
			$IP link set sport$k master br$k || fail "enslaving sport$k"
			nsenter -t "$PEER" -n $IP addr add 192.0.2.$((16 * k + 2))/28 dev srcv$k
			nsenter -t "$PEER" -n $IP link set srcv$k up
			nsenter -t "$PEER" -n gso-stream recv -l 192.0.2.$((16 * k + 2)) --expect "$BYTES" \
				--timeout $((NESTED_S + 60)) 5201 > $W/recv$k.log 2>&1 &
		fi
		$IP tuntap add dev tap$k mode tap vnet_hdr || fail "tap$k"
		$IP link set tap$k master br$k up || fail "enslaving tap$k"
		capture tap$k tap$k
		capture sport$k sport$k
		k=$((k + 1))
	done
done
# Each port's driver and limits (r8169: its own; netdevsim: the knobs).
for i in $(seq 0 $((k - 1))); do
	drv=$(readlink /sys/class/net/sport$i/device/driver)
	say "port sport$i: driver ${drv##*/} $($IP -d link show dev sport$i | grep -o 'gso_max_size [0-9]* gso_max_segs [0-9]*\|tso_max_size [0-9]* tso_max_segs [0-9]*' | tr '\n' ' ')"
done
say "gsosplit-before $(gsosplit)"

# --- the nested guests: set up every NIC, then one stream per NIC ---------
# $1: first path, $2: the guest's kind.  An unpatched guest knows nothing
# of the limits; tcp_min_tso_segs makes its TCP fill 64 KiB TSO packets
# under TCG (tests/guest/lib.sh, net_up).  Kind "on": each NIC waits for
# the daemon's 64000/64 before its stream; then the run-time change on the
# first path (NESTED-DROP, NESTED-FOLLOW) and its second part.
nested_script() {
	cat <<NESTED
FIRST=$1
KIND=$2
BYTES=$BYTES
BYTES2=$BYTES2
NESTED
	cat <<'NESTED'
. /etc/gso-guest.sh
# lim IF: IF's "TSO_MAX_SIZE TSO_MAX_SEGS GSO_MAX_SIZE"; limits_at IF
# "SIZE SEGS": IF has them.
lim() { GUEST_IF=$1; gso_limits; }
limits_at() { lim "$1" | grep -q "^$2 "; }
echo 64 > /proc/sys/net/ipv4/tcp_min_tso_segs
i=0
while [ ! -e /sys/class/net/eth1 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
ok=1
for j in 0 1; do
	k=$((FIRST + j))
	ip addr add 192.0.2.$((16 * k + 1))/28 dev eth$j && ip link set eth$j up || ok=0
	n=0
	while ! ping -c 1 -W 1 192.0.2.$((16 * k + 2)) > /dev/null 2>&1 && [ $n -lt 30 ]; do n=$((n + 1)); done
done
for j in 0 1; do
	k=$((FIRST + j))
	# The daemon sets the limits before the driver probes, or later as
	# a config change: wait for them (up to 120 s).
	if [ "$KIND" = on ]; then
		wait_for 120 limits_at eth$j "64000 64" ||
			echo "NESTED-ERROR: eth$j never had 64000/64: $(lim eth$j)"
	fi
	echo "NESTED-LINK: p$k eth$j $(uname -r) $(gso-linkinfo eth$j)"
done
for j in 0 1; do
	k=$((FIRST + j))
	gso-stream send 192.0.2.$((16 * k + 2)) 5201 "$BYTES" --timeout 150 > /tmp/send$k.log 2>&1
	rc=$?
	[ $rc = 0 ] || ok=0
	echo "NESTED-STREAM: p$k rc=$rc $(tail -n 1 /tmp/send$k.log)"
done
if [ "$KIND" = on ]; then
	# The run-time change: the host VM lowers the first path's port;
	# the guest follows, then sends the second part within the new limits.
	echo "NESTED-DROP: ready"
	if wait_for 120 limits_at eth0 "32000 32"; then
		echo "NESTED-FOLLOW: p$FIRST eth0 $(gso-linkinfo eth0)"
	else
		echo "NESTED-FOLLOW: p$FIRST timeout $(lim eth0)"
		ok=0
	fi
	gso-stream send 192.0.2.$((16 * FIRST + 2)) 5202 "$BYTES2" --timeout 150 > /tmp/send2.log 2>&1
	rc=$?
	[ $rc = 0 ] || ok=0
	echo "NESTED-STREAM2: p$FIRST rc=$rc $(tail -n 1 /tmp/send2.log)"
fi
[ $ok = 1 ]
NESTED
}

# The host daemon, as a user runs it (an "on" guest): it watches this
# namespace, finds the taps' QEMUs and sets each path's limits, using only
# the QMP sockets it is told.
case " $GUESTS " in *" on "*)
	command -v gso-limitsd > /dev/null || fail "no gso-limitsd in the host VM"
	gso-limitsd --control none --verbose --qmp-socket "$W/*-qmp.sock" > $W/limitsd.log 2>&1 &
	LDPID=$!
	say "gso-limitsd started"
esac

t0=$(ms)
# nested_start G K: start nested guest G on paths K and K+1, bounded by what
# is left of NESTED_S since t0.  mitigations=off: the speculative
# execution mitigations have nothing to do with what is tested here, and
# off, a distribution kernel does less work per system call and context
# switch, which nested TCG makes expensive.  no_timer_check: see vm.sh.
# kunit.enable=0: the project's kernel runs its KUnit suites at boot (t15
# checks them); a nested guest has no time to spare for them.
# Kind off: both NICs host_gso_limits=off; kind on: the feature offered
# with no limit (the daemon sets it) and a -qmp socket the daemon is told.
nested_start() {
	local g=$1 k=$2 kernel left props= mon=
	left=$(( NESTED_S - ($(ms) - t0) / 1000 ))
	[ "$left" -gt 0 ] || left=1
	case $g in
	off) props=,host_gso_limits=off ;;
	on)
		props=,host_gso_max_segs=65535
		mon="-qmp unix:$W/$g-qmp.sock,server=on,wait=off -trace virtio_net_gso_limits" ;;
	esac
	mkdir -p $W/$g/root
	nested_script $k $g > $W/$g/root/test.sh
	chmod 755 $W/$g/root/test.sh
	cp /opt/gso/guest.cpio $W/$g/initrd
	kernel=/opt/gso/bzImage
	if [ "$g" = debian ]; then
		kernel=/opt/gso/debian/vmlinuz
		cat /opt/gso/debian/modules.cpio.gz >> $W/$g/initrd
	fi
	(cd $W/$g/root && echo test.sh | cpio -o -H newc -R 0:0 2>/dev/null | gzip) >> $W/$g/initrd ||
		fail "nested initrd"
	# shellcheck disable=SC2086 # $mon: none or four words
	timeout -s KILL "$left" $QEMU -M pc -accel tcg -m 128 -smp 1 -nodefaults -no-user-config \
		-vga none -display none -no-reboot -L /usr/share/qemu -bios qboot.rom \
		-kernel $kernel -initrd $W/$g/initrd \
		-append "console=ttyS0 panic=-1 oops=panic panic_on_warn=1 no_timer_check kunit.enable=0 loglevel=4 mitigations=off" \
		-chardev file,id=con,path=$W/$g/console.log -serial chardev:con \
		-device virtio-serial-pci,id=vser0 \
		-chardev file,id=ret,path=$W/$g/ret \
		-device virtserialport,bus=vser0.0,chardev=ret,name=gso.ret \
		-netdev tap,id=n0,ifname=tap$k,script=no,downscript=no,vhost=off \
		-device virtio-net-pci,netdev=n0,mac=52:54:00:12:34:$((10 + k)),romfile=$props \
		-netdev tap,id=n1,ifname=tap$((k + 1)),script=no,downscript=no,vhost=on \
		-device virtio-net-pci,netdev=n1,mac=52:54:00:12:34:$((11 + k)),romfile=$props \
		$mon > $W/$g/qemu.out 2> $W/$g/qemu.err &
	echo $! > $W/$g/qpid
	say "nested $g on p$k (vhost=off) p$((k + 1)) (vhost=on) started, ${left} s left"
	[ "$g" = on ] && drop_watch $k &
}
# drop_watch K: an "on" guest's run-time change on path K, in the
# background: once the guest has sent its streams, lower sportK to
# 32000/32 as an admin does (the project's kernel announces the change,
# kernel-event-patches/, and the daemon follows); then the time until the
# guest reports it (this VM's clock).
drop_watch() {
	local k=$1 t
	wait_for "$NESTED_S" grep -qs 'NESTED-DROP: ready' $W/on/console.log || exit 0
	$IP link set dev sport$k gso_max_size 32000 gso_max_segs 32 || say "error: lowering sport$k"
	t=$(ms)
	say "port-after sport$k: $($IP -d link show dev sport$k | grep -o 'gso_max_size [0-9]* gso_max_segs [0-9]*\|tso_max_size [0-9]* tso_max_segs [0-9]*' | tr '\n' ' ')"
	if wait_for 150 grep -qs "NESTED-FOLLOW: p$k eth0 " $W/on/console.log; then
		say "p$k-follow-ms $(( $(ms) - t ))"
	else
		say "p$k-follow-ms timeout"
	fi
}
# nested_wait G: wait for G's QEMU, say when it ended.
nested_wait() {
	wait "$(cat $W/$1/qpid)" 2>/dev/null
	say "nested-$1-ms $(( $(ms) - t0 ))"
}
set -- $GUESTS
nested_start "$1" 0

# Progress every 20 s (a run cut short by the host VM's timeout still
# shows how far each guest got).
(
	while sleep 20; do
		for g in $GUESTS; do
			say "progress $g $(( $(ms) - t0 )) ms: $(tr -d '\r' < $W/$g/console.log 2>/dev/null | grep -v '^$' | tail -n 1 | cut -c1-100)"
		done
	done
) &
PROGRESS=$!

# --- the forwarded case, while the guests boot ----------------------------
# snd --veth(fs0 | fr0)--> rtr --fport (64000/64) | frcv--> dst, routed.
# Variant "tso": the sender's TCP builds 64 KiB TSO packets, the router
# forwards them as they are.  Variant "gro": the sender hands the veth
# MSS-sized segments (no TSO: software GSO) and the router's GRO (on fr0)
# merges them into packets of up to 64 KiB again, with a frag_list past
# MAX_SKB_FRAGS segments (skb_gro_receive()).
fwd_variant() {
	local v=$1 port=$2
	if [ "$v" = tso ]; then
		$S ethtool -K fs0 tso on gso on > /dev/null 2>&1 || fail "fs0 offloads"
		$R ethtool -K fr0 gro off > /dev/null 2>&1 || fail "GRO off on fr0"
	else
		# Software GSO at fs0: each 64 KiB packet reaches fr0's ring as a
		# burst of its 45 segments, which one NAPI poll's GRO merges
		# again (segments sent one by one, GRO's packets depend on timing).
		$S ethtool -K fs0 tso off gso on > /dev/null 2>&1 || fail "fs0 offloads"
		$R ethtool -K fr0 gro on > /dev/null 2>&1 || fail "GRO on fr0"
	fi
	say "fwd-$v-offloads sender $($S ethtool -k fs0 | grep '^tcp-segmentation-offload' | tr -d ' '), router $($R ethtool -k fr0 | grep '^generic-receive-offload' | tr -d ' ')"
	capture fwd-$v-in fr0 "$RTR"
	capture fwd-$v-out fport "$RTR"
	$D gso-stream recv -l 203.0.113.18 --expect "$BYTES" --timeout 120 "$port" > $W/fwd-$v-recv.log 2>&1 &
	RPID=$!
	sleep 0.5
	say "fwd-$v-gsosplit-before $(gsosplit "$RTR")"
	$S gso-stream send 203.0.113.18 "$port" "$BYTES" --timeout 100 > $W/fwd-$v-send.log 2>&1
	say "fwd-$v-send rc=$? $(tail -n 1 $W/fwd-$v-send.log)"
	wait_for 20 sh -c "! kill -0 $RPID 2>/dev/null" || kill "$RPID" 2>/dev/null
	say "fwd-$v-recv $(grep 'role=recv' $W/fwd-$v-recv.log | tail -n 1)"
	say "fwd-$v-gsosplit-after $(gsosplit "$RTR")"
	capture_stop fwd-$v-in
	capture_stop fwd-$v-out
	hist fwd-$v fwd-$v-in fwd-$v-out
}
if [ "$FWD" = 1 ]; then
	SND=$(new_ns) && RTR=$(new_ns) && DST=$(new_ns) || fail "forwarded case namespaces"
	$IP link add fs0 type veth peer name fr0 || fail "veth fs0"
	$IP link set fs0 netns "$SND" && $IP link set fr0 netns "$RTR" || fail "moving the veth"
	nsim_pair 640 fport "$RTR" frcv "$DST" || fail "netdevsim pair fport/frcv"
	S="nsenter -t $SND -n" R="nsenter -t $RTR -n" D="nsenter -t $DST -n"
	$S $IP addr add 203.0.113.1/28 dev fs0
	# As in the guests (tests/guest/lib.sh, net_up): full 64 KiB packets
	# whatever TCG's pacing rate; the sysctl is per namespace.
	$S sh -c 'echo 64 > /proc/sys/net/ipv4/tcp_min_tso_segs'
	$S $IP link set fs0 up
	$S $IP route add default via 203.0.113.2
	$R $IP addr add 203.0.113.2/28 dev fr0
	$R $IP link set fr0 up
	$R $IP addr add 203.0.113.17/28 dev fport
	$R sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward'
	$D $IP addr add 203.0.113.18/28 dev frcv
	$D $IP link set frcv up
	$D $IP route add default via 203.0.113.17
	say "fwd-port $($R $IP -d link show dev fport | grep -o 'gso_max_size [0-9]* gso_max_segs [0-9]*' | tr '\n' ' ')"
	fwd_variant tso 5301
	fwd_variant gro 5302
fi

# --- the other guests, one at a time; then reduce the captures ------------
prev=$1 k=2
shift
for g in "$@"; do
	nested_wait "$prev"
	nested_start "$g" $k
	prev=$g k=$((k + 2))
done
nested_wait "$prev"
kill "$PROGRESS" 2>/dev/null
say "nested-total-ms $(( $(ms) - t0 ))"
sleep 1
say "gsosplit-after $(gsosplit)"
k=0
for g in $GUESTS; do
	say "nested-$g-exit $(tr -dc '0-9' < $W/$g/ret 2>/dev/null)"
	# Its kernel reports, whole (the outer test's console scan reads them).
	console_splats $W/$g/console.log SPL-SPLAT-$g
	tr -d '\r' < $W/$g/console.log | grep 'NESTED-' | sed "s/^/SPL-CON-$g: /"
	tr -d '\r' < $W/$g/console.log | grep -v 'NESTED-' | tail -n 15 | sed "s/^/SPL-CON-$g: /"
	sed "s/^/SPL-CON-$g: qemu: /" $W/$g/qemu.err | tail -n 5
	for j in 0 1; do
		say "p$k-send $(tr -d '\r' < $W/$g/console.log | sed -n "s/.*NESTED-STREAM: p$k //p")"
		# (r8169: the receiver is on the outer host, splitvm_wire_recv.)
		[ "$EGRESS" = r8169 ] || say "p$k-recv $(grep 'role=recv' $W/recv$k.log | tail -n 1)"
		capture_stop tap$k
		capture_stop sport$k
		if [ "$g" = on ] && [ $j = 0 ]; then
			# The two parts of the run-time change, apart: pK (port
			# 5201, at 64000/64), pK-after (port 5202, after the drop).
			for c in tap$k sport$k; do
				$TCPDUMP -Z root -r $W/$c.pcap -w $W/$c-a.pcap 'dst port 5201' 2>/dev/null
				$TCPDUMP -Z root -r $W/$c.pcap -w $W/$c-b.pcap 'dst port 5202' 2>/dev/null
			done
			hist p$k tap$k-a sport$k-a
			hist p$k-after tap$k-b sport$k-b
			say "p$k-send2 $(tr -d '\r' < $W/$g/console.log | sed -n "s/.*NESTED-STREAM2: p$k //p")"
		else
			hist p$k tap$k sport$k
		fi
		# The r8169 egress: the TSO packets the driver took, for the
		# outer host's check of the segments on the wire.  -Z root, as
		# for the capture: tcpdump drops to its own user after opening a
		# file too, and the initramfs has none (it would print nothing).
		[ "$EGRESS" = r8169 ] && $TCPDUMP -Z root -r $W/sport$k.pcap -nn -S 2>/dev/null |
			sed -n "s/.*Flags \\[\\([^]]*\\)\\], seq \\([0-9]*\\):\\([0-9]*\\),.*/SPL-TSO-p$k: \\2 \\3 \\1/p"
		k=$((k + 1))
	done
done
if [ -n "${LDPID:-}" ]; then
	kill -0 "$LDPID" 2>/dev/null && say "limitsd running" || say "limitsd exited"
	grep ' set size ' $W/limitsd.log | sed 's/^/SPL-LD: /'
	grep -v ' set size ' $W/limitsd.log | tail -n 20 | sed 's/^/SPL-LD: /'
	grep -h 'virtio_net_gso_limits' $W/on/qemu.err 2>/dev/null | tail -n 20 | sed 's/^/SPL-QEMU: /'
fi
exit 0
HOSTVM
}

# splitvm_start NAME NETNS KERNEL INITRD GUESTS FWD [QEMU ARGS...]: boot a
# host VM (2 vCPUs, 1 GiB) running splitvm_script GUESTS FWD, in the
# background.  SPLITVM_APPEND: more kernel arguments.
splitvm_start() {
	local name=$1 ns=$2 kernel=$3 initrd=$4 script=$TEST_LOG_DIR/$1.sh
	splitvm_script "$5" "$6" > "$script"
	shift 6
	# The host VM outlives its nested guests' bound by enough to reduce
	# and print the captures.
	GSO_VM_TIMEOUT=$((SPLITVM_NESTED_S * 3 / 2 + 60)) VM_KERNEL=$kernel VM_EXTRA_INITRD=$initrd \
		VM_APPEND="loglevel=4 ${SPLITVM_APPEND:-}" vm_start "$name" "$ns" "$script" -m 1024 -smp 2 "$@"
}

# splitvm_console VM: the host VM's console without CRs.
splitvm_console() { tr -d '\r' < "$TEST_LOG_DIR/$1.console.log" 2>/dev/null || true; }

# splitvm_val VM KEY: the value of the host VM's last "SPL: KEY value" line.
splitvm_val() { splitvm_console "$1" | sed -n "s/^SPL: $2 //p" | tail -n 1; }

# splitvm_files VM PATH: write PATH's gso-hist output as files, as
# tests/harness/bulk.sh's bulk_hist does: $TEST_LOG_DIR/VM-PATH.hist.json,
# .hist.txt, .plot.dat.  Fails when the host VM printed no histogram.
splitvm_files() {
	local out=$TEST_LOG_DIR/$1-$2
	splitvm_console "$1" | sed -n "s/^SPL-JSON-$2: //p" > "$out.hist.json"
	splitvm_console "$1" | sed -n "s/^SPL-HIST-$2: //p" > "$out.hist.txt"
	splitvm_console "$1" | sed -n "s/^SPL-PLOT-$2: //p" > "$out.plot.dat"
	[ -s "$out.hist.json" ] && jq -e .files "$out.hist.json" > /dev/null 2>&1
}

# --- SPLITVM_EGRESS=r8169: the host VM's NICs and the outer wire peer --------
# Path K of a host VM leaves through the host VM's NIC nicK, an emulated
# RTL8125B (-device rtl8168,chip=rtl8125b, qemu-test-patches/) with MAC
# 52:54:00:12:34:(56+K) (hex; the host VM's script finds it by that MAC and
# makes it sportK), under the r8169 driver, which sets its limits itself.
# Its netdev is a tap without vnet header on the outer host (the frames the
# model put on the wire), bridged to a wire peer namespace where path K's
# receiver runs and tcpdump captures the wire; the host VM prints the TSO
# packets the driver took (SPL-TSO-pK lines) and splitvm_wire_check checks
# every wire segment against them (wire_check, tests/harness/wire.sh).
declare -gA SPLITVM_WIRE_PIDS=()

# splitvm_wire NAME NETNS PEER_NS PATHS: the outer side of host VM NAME's
# r8169 egress for paths 0..PATHS-1, in NETNS (where splitvm_start runs
# its QEMU) and PEER_NS (both from setup_ns): per path K a tap stapK in a
# bridge sbrK with a veth swireK, whose peer wireK in PEER_NS holds the
# address path K's nested guest sends to (192.0.2.(16K+2)/28); there the
# receiver ($TEST_LOG_DIR/NAME-pK.recv.log) and the wire capture
# (NAME-pK.wire.pcap) run, each killed at cleanup.  Sets SPLITVM_NIC_ARGS,
# the host VM's NICs for splitvm_start's QEMU ARGS.
splitvm_wire() {
	local name=$1 ns=$2 peer=$3 paths=$4 k out
	SPLITVM_NIC_ARGS=()
	for ((k = 0; k < paths; k++)); do
		out=$TEST_LOG_DIR/$name-p$k
		ip -n "$ns" link add "sbr$k" type bridge stp_state 0 forward_delay 0 || return 1
		ip -n "$ns" tuntap add dev "stap$k" mode tap || return 1
		ip -n "$ns" link add "swire$k" type veth peer name "wire$k" netns "$peer" || return 1
		ip -n "$ns" link set dev "stap$k" master "sbr$k" up &&
			ip -n "$ns" link set dev "swire$k" master "sbr$k" up &&
			ip -n "$ns" link set "sbr$k" up || return 1
		ip -n "$peer" addr add "192.0.2.$((16 * k + 2))/28" dev "wire$k" &&
			ip -n "$peer" link set "wire$k" up || return 1
		# The wire as the model sent it, not as GRO merged it.
		ip netns exec "$peer" ethtool -K "wire$k" gro off > /dev/null 2>&1 || true
		# (5202: an "on" guest's second part, splitvm_wire_part2.)
		ip netns exec "$peer" tcpdump -i "wire$k" -s 0 -U -w "$out.wire.pcap" \
			tcp portrange 5201-5202 2> "$out.wire.log" &
		SPLITVM_WIRE_PIDS[$name-p$k-cap]=$!
		defer "kill $! 2>/dev/null"
		slowwait 10 grep -q 'listening on' "$out.wire.log" ||
			{ echo "splitvm_wire: tcpdump on wire$k: $(cat "$out.wire.log")" >&2; return 1; }
		# It lives as long as the host VM may (splitvm_start's bound).
		ip netns exec "$peer" "$GSO_TOP/tools/build/gso-stream" recv -l "192.0.2.$((16 * k + 2))" \
			--expect "$SPLITVM_BYTES" --timeout $((SPLITVM_NESTED_S * 3 / 2 + 60)) 5201 \
			> "$out.recv.log" 2>&1 &
		SPLITVM_WIRE_PIDS[$name-p$k-recv]=$!
		defer "kill $! 2>/dev/null"
		SPLITVM_NIC_ARGS+=(-netdev "tap,id=w$k,ifname=stap$k,script=no,downscript=no,vhost=off,vnet_hdr=off"
			-device "rtl8168,id=nic$k,netdev=w$k,chip=rtl8125b,mac=$(printf '52:54:00:12:34:%02x' $((0x56 + k)))")
	done
}

# splitvm_wire_part2 NAME PEER_NS K: after splitvm_wire, the receiver of
# the second part an "on" guest sends on path K after the run-time change
# (port 5202, SPLITVM_BYTES2; $TEST_LOG_DIR/NAME-pK.recv2.log); its
# verdict: splitvm_wire_recv NAME K 2.
splitvm_wire_part2() {
	ip netns exec "$2" "$GSO_TOP/tools/build/gso-stream" recv -l "192.0.2.$((16 * $3 + 2))" \
		--expect "$SPLITVM_BYTES2" --timeout $((SPLITVM_NESTED_S * 3 / 2 + 60)) 5202 \
		> "$TEST_LOG_DIR/$1-p$3.recv2.log" 2>&1 &
	SPLITVM_WIRE_PIDS[$1-p$3-recv2]=$!
	defer "kill $! 2>/dev/null"
}

# splitvm_violations NAME PATHS: once host VM NAME's nested guests have
# ended (its console's "SPL: nested-total-ms" or "SPL: error"), while it
# reduces its captures (it powers off after), read each of its NICs'
# x-violations over QMP: prints "nicK N" per path (N empty: not read).
# Returns when it has read them or the host VM ended; runs in the
# background for host VMs waited for together.
splitvm_violations() {
	local name=$1 paths=$2 pid k var="VM_PID_${1//[^a-zA-Z0-9_]/_}"
	pid=${!var}
	for _ in $(seq $((SPLITVM_NESTED_S * 2))); do
		grep -sqE '^SPL: (nested-total-ms|error)' "$TEST_LOG_DIR/$name.console.log" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 1
	done
	for ((k = 0; k < paths; k++)); do
		echo "nic$k $(vm_qmp "$name" "{\"execute\":\"qom-get\",\"arguments\":{\"path\":\"/machine/peripheral/nic$k\",\"property\":\"x-violations\"}}" 2>/dev/null |
			sed -n 's/.*"return": *\([0-9]*\).*/\1/p' | tail -n 1)"
	done
}

# splitvm_wire_recv NAME K [2]: after host VM NAME ended, path K's receiver's
# verdict (its "role=recv" line; 2: the second part's, splitvm_wire_part2);
# an earlier run's log (T63_RECHECK) is read as it is.
splitvm_wire_recv() {
	local pid=${SPLITVM_WIRE_PIDS[$1-p$2-recv${3:-}]:-}
	if [ -n "$pid" ]; then
		slowwait 10 sh -c "! kill -0 $pid 2>/dev/null" || kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null || true
	fi
	grep -s 'role=recv' "$TEST_LOG_DIR/$1-p$2.recv${3:-}.log" | tail -n 1 || true
}

# splitvm_wire_check NAME K [FLOWS]: after host VM NAME ended, stop path K's wire
# capture and check each wire data segment against the TSO packet the
# driver took that holds it (the host VM's SPL-TSO-pK lines, from its
# capture on sportK), with both captures' drop counts (wire_check,
# tests/harness/wire.sh).  Sets WIRE, WIRE_SEGS, WIRE_TSO, WIRE_PSH and
# WIRE_BAD: each check that failed, one per line, with its figures
# (empty: all hold).  Returns 1 when one failed.  FLOWS: the TCP
# connections path K carried (default 1; an "on" guest's first path has
# two, the stream and its second part after the run-time change).
splitvm_wire_check() {
	local name=$1 k=$2 out=$TEST_LOG_DIR/$1-p$2 pid
	pid=${SPLITVM_WIRE_PIDS[$name-p$k-cap]:-}
	[ -z "$pid" ] || pcap_stop_settled "$out.wire.pcap" "$pid"
	splitvm_console "$name" | sed -n "s/^SPL-TSO-p$k: //p" > "$out.tso.txt"
	splitvm_console "$name" | sed -n "s/^SPL: sport$k-capture //p" > "$out.sport.log"
	wire_check "$name-p$k" "$out.tso.txt" "$out.wire.pcap" "src host 192.0.2.$((16 * k + 1))" "${3:-1}" \
		"wire=$out.wire.log" "host VM's sport$k (the TSO packets)=$out.sport.log"
}
