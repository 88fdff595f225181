# Guest-side helpers for test scripts (installed as /etc/gso-guest.sh).
# Each check prints "GUEST-CHECK: name ok|fail [detail]" for the host to read.

GUEST_IF=${GUEST_IF:-eth0}

gcheck() {
	local name=$1
	shift
	if "$@"; then
		echo "GUEST-CHECK: $name ok"
	else
		echo "GUEST-CHECK: $name fail"
		return 1
	fi
}

# net_up IP4 IP6: bring the virtio-net interface up and wait for carrier.
net_up() {
	local i=0
	# TCP sizes its GSO packets from its pacing rate (tcp_tso_autosize()):
	# a guest as slow as one under TCG would send small ones and never meet
	# the host path's limit.  At least 64 segments per packet makes it fill
	# every packet up to gso_max_size, as the seed's 8-vCPU KVM guest did.
	echo 64 > /proc/sys/net/ipv4/tcp_min_tso_segs
	# busybox ip knows no "nodad": turn DAD off before adding the address.
	echo 0 > /proc/sys/net/ipv6/conf/"$GUEST_IF"/accept_dad
	ip addr add "$1/24" dev "$GUEST_IF" || return 1
	ip -6 addr add "$2/64" dev "$GUEST_IF" || return 1
	ip link set dev "$GUEST_IF" up || return 1
	while [ "$(cat /sys/class/net/"$GUEST_IF"/operstate 2>/dev/null)" != up ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(cat /sys/class/net/"$GUEST_IF"/operstate)" = up ]
}

# ping_until ADDR: the wire peer answers within 10 s (the bridge port may
# need a moment to forward after the tap opened).
ping_until() {
	local i=0
	while [ $i -lt 20 ]; do
		ping -c 1 -W 1 "$1" >/dev/null 2>&1 && return 0
		i=$((i + 1))
	done
	return 1
}

# gso_limits: "TSO_MAX_SIZE TSO_MAX_SEGS GSO_MAX_SIZE" of the interface,
# for tests that watch the limits change.
gso_limits() {
	gso-linkinfo "$GUEST_IF" | awk '{ for (i = 1; i < NF; i++) v[$i] = $(i + 1)
		print v["tso_max_size"], v["tso_max_segs"], v["gso_max_size"] }'
}

# ms: milliseconds since boot (busybox date has no %N).
ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

# wait_for SECONDS CMD...: retry CMD every 0.25 s until it succeeds, at most
# SECONDS; the host VMs of tier 2 use it too (their initramfs is this one).
wait_for() {
	local end=$(( $(ms) + $1 * 1000 ))
	shift
	while ! "$@"; do
		[ "$(ms)" -lt "$end" ] || return 1
		sleep 0.25
	done
}

# console_splats FILE TAG: a nested guest's kernel reports (WARN, BUG,
# KASAN, lockdep, RCU stall, Oops, panic) on its console FILE, each line
# with the trace after it, prefixed "TAG: ", at most 60 lines: a host VM
# prints them on its own console, where the outer test's scan
# (tests/harness/vm.sh, GSO_SPLAT_RE: keep the two in step) finds them.
SPLAT_RE='\[ *[0-9]+\.[0-9]+\].*(WARNING:|BUG:|KASAN|UBSAN|possible circular locking|possible recursive locking|INFO: |self-detected stall|rcu: INFO|Call Trace|Kernel panic|Oops)'
console_splats() {
	tr -d '\r' < "$1" 2>/dev/null | grep -E -A 12 "$SPLAT_RE" | head -n 60 | sed "s/^/$2: /"
}
